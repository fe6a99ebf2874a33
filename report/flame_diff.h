// The differential flame graph of compare --host-profile's HTML export: one
// tree of both configurations' stacks, each frame as wide as the mean of its
// time per iteration in A and in B (so a frame only one side has still shows)
// and coloured by the change B - A (page.js, kind "flame_diff").
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "profile/host_diff.h"

namespace eb::report {

// {"name", "value", "a", "b", "children"}: a and b are ns per iteration,
// averaged over the rounds that hold `test` on both sides; value their mean.
// Frames under `min_share` of the root's value are left out. Null when no
// round holds the test on both sides.
nlohmann::json diff_flame_tree(const std::string& test, const std::vector<profile::RoundProfiles>& a,
                               const std::vector<profile::RoundProfiles>& b, double tsc_mhz,
                               double min_share = 0.001);

// The same for saved runs, each side's runs weighted alike, each at its own
// TSC rate. Null when a side holds no run with samples of `test`.
nlohmann::json diff_flame_tree_runs(const std::string& test, const std::vector<profile::RunProfiles>& a,
                                    const std::vector<profile::RunProfiles>& b, double min_share = 0.001);

} // namespace eb::report
