// Flame graphs of host profiles in the HTML report: the tree the page's own
// renderer (report/page.js, kind "flame") draws, and the run page with them.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "profile/host_profile.h"
#include "report/exporter.h"
#include "suite/result.h"

namespace eb::report {

// {"name", "value", "children": [...]}: the test at the root, children in
// name order as flamegraph.pl sorts them; a frame holding less than
// `min_share` of the samples is dropped (it would be under a pixel wide).
nlohmann::json flame_tree(const profile::TestHostProfile& p, double min_share = 0.001);

// The run's HTML export, with a flame graph per profiled test after its plots.
std::string render_run_html(const suite::RunReport& r, const std::vector<profile::TestHostProfile>& host);

// compare's HTML export with differential flame graphs (report/flame_diff.h,
// DiffFlame in report/exporter.h) after its plots.
std::string render_compare_html(const Comparison& c, const std::vector<DiffFlame>& flames);

// `history trend`'s points (oldest first), as its HTML chart takes them.
struct TrendRow {
    std::string when, label, host;
    int64_t run = 0;
    int session = 0;
    double cycles = 0;
};
std::string render_trend_html(const std::string& test, const std::vector<TrendRow>& rows);

} // namespace eb::report
