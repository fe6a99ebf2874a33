// compare's live mode: configurations run in interleaved rounds, one fresh
// VM per test and configuration in each round; the round is the unit.
#pragma once
#include <atomic>
#include <random>
#include <string>
#include <vector>

#include "cli/compare.h"
#include "cli/compare_host_profile.h"
#include "suite/compare.h"

namespace eb::cli {

// The run order of round r: two configurations alternate AB, BA, ... so that
// neither always runs first; more are shuffled per round.
std::vector<size_t> round_order(size_t configs, uint64_t round, std::mt19937_64& rng);

// What a live compare ran: rounds[k][r] is configuration k's result in round r.
struct LiveRuns {
    std::vector<std::string> labels, shown;  // each configuration's label and options as given
    std::vector<std::vector<suite::RunReport>> rounds;
};

// Runs the configurations and compares them round by round; `header` gets
// the lines that describe what ran, `ran` (if given) the results, `host`
// (if given) a host profile of every configuration's run in every round.
suite::ComparisonReport run_live(const std::string& device, const CompareArgs& a, double alpha,
                                 const std::atomic<bool>& interrupt, std::vector<std::string>& header,
                                 LiveRuns* ran = nullptr, CompareHostProfile* host = nullptr);

// One configuration's rounds as one run whose sessions are the rounds (in
// round order), as `run --sessions N` would have saved them.
suite::RunReport merge_rounds(const std::vector<suite::RunReport>& rounds);

// Saves each configuration as a run labelled BASE/CONFIG, BASE being --label
// or compare-TIMESTAMP; a failure is a warning, as for `run`.
bool save_live(const CompareArgs& a, const LiveRuns& ran);

// Default rounds: 8 make a verdict reachable for typical spreads. With
// --time-budget a pilot fixes the number instead (suite/stop_rule.h).
inline constexpr uint64_t kDefaultRounds = 8;

} // namespace eb::cli
