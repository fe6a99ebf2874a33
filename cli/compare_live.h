// compare's live mode on the command line: the configurations (--a/--b,
// --config, or a recipe's) and the schedule, parsed, then run by the use case
// (lab/compare_live.h).
#pragma once
#include <atomic>
#include <string>
#include <vector>

#include "cli/compare.h"
#include "lab/compare_live.h"
#include "lab/vocabulary.h"

namespace eb::cli {

// Runs the configurations of `a` in interleaved rounds; `header` gets the
// lines that say what ran, `ran` the results; `hooks` (compare --host-profile)
// hear of each configuration's run in each round.
lab::ComparisonReport run_live(const std::string& device, const CompareArgs& a, double alpha,
                                 const std::atomic<bool>& interrupt, std::vector<std::string>& header,
                                 lab::LiveRuns& ran, lab::RoundHooks* hooks = nullptr);

} // namespace eb::cli
