// compare's view of one configuration's data for one test, kept by level
// (boot, run, session, repeat), and the unit values at a chosen level.
// Internal to suite/compare*.cpp. Pure.
#pragma once
#include <string>
#include <vector>

#include "suite/compare.h"

namespace eb::suite::detail {

struct RunData {
    std::string boot;                              // provenance boot id; empty when unknown
    std::string load;                              // provenance module load id; empty when none
    std::vector<double> session_logs;              // log median of each usable session
    std::vector<std::vector<double>> repeat_logs;  // per usable session: the log of each repeat
};

struct SideData {
    std::vector<RunData> runs;          // one per file or round, in order (maybe without sessions)
    std::vector<std::string> dropped;   // "run 2 session 3": a median that is not positive
    std::vector<uint64_t> batch_sizes;
    Status status = Status::Ok;
    std::string detail;
    bool seen = false;                  // some run holds the test
    bool imported = false;              // some run holding it is an imported figure
    std::vector<std::string> knobs_not_applied;  // the knob warnings of its results (knob_not_applied)
};

// Every test's data, sides[k] in order; tests as first seen, configuration 0 first.
struct Collected {
    std::vector<std::string> order;
    std::vector<std::vector<SideData>> by_test;  // [test][side]
};
Collected collect(const std::vector<std::vector<RunReport>>& sides);
// The same over sides held elsewhere (no copy of the results).
Collected collect(const std::vector<const std::vector<RunReport>*>& sides);

// The unit values (logs) at a level: each run's (round's) mean of its
// session logs, or each boot's (load's) mean of its runs' means. Round keeps no gap
// markers: pair rounds through SideData::runs instead.
std::vector<double> units(const SideData& d, Unit u);

SideSummary summarize(const std::string& label, const SideData& d, Unit u);

// Why a side cannot enter a test (not run, failed, hung, mismatched,
// skipped, interrupted), or empty.
std::string unusable(const SideSummary& s, const SideData& d);

} // namespace eb::suite::detail
