// compare's live mode: configurations run in interleaved rounds, one fresh
// VM per test and configuration in each round; the round is the unit.
#pragma once
#include <atomic>
#include <random>
#include <string>
#include <vector>

#include "cli/compare.h"
#include "suite/compare.h"

namespace eb::cli {

// The run order of round r: two configurations alternate AB, BA, ... so that
// neither always runs first; more are shuffled per round.
std::vector<size_t> round_order(size_t configs, uint64_t round, std::mt19937_64& rng);

// Runs the configurations and compares them round by round; `header` gets
// the lines that describe what ran.
suite::ComparisonReport run_live(const std::string& device, const CompareArgs& a, double alpha,
                                 const std::atomic<bool>& interrupt, std::vector<std::string>& header);

// Default and minimum rounds: below ~5 paired rounds a t interval is too wide
// to be worth stopping on, and 8 make a verdict reachable for typical spreads.
inline constexpr uint64_t kDefaultRounds = 8;
inline constexpr uint64_t kMinRoundsForPrecision = 5;

} // namespace eb::cli
