// A host-profile comparison (profile/host_diff.h) as data: its JSON
// ("exitbench-host-diff"), its grid (a row per test and function: CSV, and
// the HTML page's table) and the HTML page with the differential flame
// graphs. The text is report/host_diff_text.h.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "profile/host_diff.h"
#include "report/flame.h"
#include "report/grid.h"

namespace eb::report {

inline constexpr int kHostDiffSchemaVersion = 1;

nlohmann::json host_diff_json(const profile::HostDiff& d);
// Every function tested, then every one-sided function ("A only", "B only").
Grid host_diff_grid(const profile::HostDiff& d);
std::string render_host_diff_html(const profile::HostDiff& d, const std::vector<DiffFlame>& flames);

} // namespace eb::report
