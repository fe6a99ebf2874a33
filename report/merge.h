// `report merge`: results from many hosts in one view. Hosts are grouped by
// the facts that define a machine for an exit's cost (CPU model, microcode,
// kernel, KVM backend); within a group every test gets its spread across
// hosts, and a host whose figure is far from the group's median is flagged.
#pragma once
#include <string>
#include <vector>

#include "suite/result.h"

namespace eb::report {

struct MergeInput {
    std::string name;  // the file it came from
    suite::RunReport run;
};

struct HostFigure {
    std::string host;   // hostname, or the file name where none was recorded
    double cycles = 0;  // the test's headline figure on that host: the median over its runs
    size_t runs = 1;    // the files (independent runs) of that host that measured the test
    bool outlier = false;
};

struct MergedTest {
    std::string test;
    std::vector<HostFigure> hosts;
    double median = 0, min = 0, max = 0;
    double spread_pct = 0;  // (max - min) / median
    // "host 1420 (+14.8%)" per outlier host; empty with none, or under 3 hosts.
    std::vector<std::string> outlier_notes() const;
};

struct MergeGroup {
    std::string cpu_model, microcode, kernel, backend;
    std::vector<std::string> hosts;
    std::vector<MergedTest> tests;
};

struct Merged {
    std::vector<MergeGroup> groups;
    std::vector<std::string> warnings;  // schema versions, test sets: what was merged
};

// A host is an outlier in its group when its log figure is further from the
// group's median than 3 scaled MADs and than kOutlierFloor (relative): with
// near-identical hosts the MAD alone would flag noise. Needs 3 hosts.
inline constexpr double kOutlierFloor = 0.02;

// Files of one host (same hostname, same group) are that host's runs: its
// figure is their median, so a host given twice is not counted as two.
Merged merge_runs(const std::vector<MergeInput>& in);
// A group's heading: "CPU | microcode M | kernel K | backend: N host(s): a, b".
std::string group_title(const MergeGroup& g);
// The outlier rule, in words, for the notes under a table.
std::string outlier_rule();
// The terminal view (the table format).
std::string render_merged(const Merged& m);

} // namespace eb::report
