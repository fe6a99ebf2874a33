// A/B comparison of configurations. The unit of every verdict is an
// independent execution: a session (one fresh VM per test), a saved run, or an
// interleaved round. Repeats inside one session only describe that session,
// so they are summarised by their median and never pooled across sessions.
// Effects are ratios of geometric means, worked out on log medians. Pure.
#pragma once
#include <limits>
#include <string>
#include <vector>

#include "stats/inference.h"
#include "suite/result.h"

namespace eb::suite {

enum class Verdict { Faster, Slower, NoDifference, NotTestable };
const char* verdict_name(Verdict v);

// Which executions are the independent units.
enum class Unit {
    Session,  // saved results: every session of every file on a side
    Run,      // saved results, several files a side with several sessions each: the file
    Round,    // interleaved: configurations paired within each round
};
const char* unit_name(Unit u);

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct SideSummary {
    std::string label;
    std::vector<double> unit_medians;  // cycles, one per unit
    size_t sessions = 0;               // sessions that measured the test
    double center = 0;                 // geometric mean of unit_medians
    stats::Interval center_ci{kNaN, kNaN};  // 95% t interval on the logs; NaN with one unit
    // Log-scale SDs of each level (about the relative spread): repeats within
    // a session, sessions, and (Unit::Run) runs. NaN where a level has one value.
    double within_sd = kNaN, between_session_sd = kNaN, between_run_sd = kNaN;
    // Between boots (provenance boot ids), when the side's saved runs span two
    // or more: the SD of the boot means of the runs' log medians, with the
    // runs-within-a-boot share taken out. A reported level, never the unit.
    double between_boot_sd = kNaN;
    size_t boots = 0;                  // distinct boot ids among the runs (0: none recorded)
    bool boot_holds_two_runs = false;  // else runs and boots cannot be told apart

    size_t repeats = 0;                // typical repeats per session
    std::vector<uint64_t> batch_sizes; // distinct batch sizes seen, sorted
    std::string status;                // the worst over every session
    std::string detail;                // why, when a session was skipped or failed
};

struct Effect {
    Verdict verdict = Verdict::NotTestable;
    double ratio = kNaN;                     // B / A of the geometric means, as observed
    stats::Interval ratio_ci{kNaN, kNaN};    // (1 - alpha); NaN when not testable
    double p = kNaN;
    double df = 0;
    double detectable = std::numeric_limits<double>::infinity();  // relative, at 80% power
    size_t units_a = 0, units_b = 0;
    std::string method;                      // the test that was applied
    std::string why;                         // NotTestable: the reason
};

struct TestComparison {
    std::string test;
    std::vector<SideSummary> configs;
    std::vector<Effect> vs_first;  // configs[i] against configs[0], i >= 1
};

struct ComparisonReport {
    std::vector<std::string> labels;
    Unit unit = Unit::Session;
    double alpha = 0.05;
    std::vector<TestComparison> tests;
    std::vector<std::string> warnings;  // drift in the baseline, batch sizes, overlap, host facts
    std::vector<std::string> advice;    // what to run to get a verdict, or a sharper one
};

// Saved results: sides[k] holds every result file of configuration k.
ComparisonReport compare_saved(const std::vector<std::string>& labels,
                               const std::vector<std::vector<RunReport>>& sides, double alpha = 0.05);

// Interleaved rounds: rounds[k][r] is configuration k's result in round r.
// Every configuration is paired with configuration 0 round by round.
ComparisonReport compare_rounds(const std::vector<std::string>& labels,
                                const std::vector<std::vector<RunReport>>& rounds, double alpha = 0.05);

} // namespace eb::suite
