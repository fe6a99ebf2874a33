// compare's live mode, the use case: configurations run in interleaved
// rounds, one fresh VM per test and configuration in each round; the round
// is the unit. The command line parses the configurations and the schedule.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kvm/system.h"
#include "lab/run.h"
#include "suite/compare.h"

namespace eb::lab {

// The run order of round r: two configurations alternate AB, BA, ... so that
// neither always runs first; more are shuffled per round.
std::vector<size_t> round_order(size_t configs, uint64_t round, std::mt19937_64& rng);

// One configuration: its label, its options as the user wrote them, its plan.
struct LiveConfig {
    std::string label, shown;
    RunPlan plan;
};

// How many rounds. With a budget (budget_s > 0) a pilot of
// suite::kPilotRounds fixes the number for `precision` (a fraction) instead,
// at most `rounds`, and the budget may end them earlier.
struct LiveSchedule {
    uint64_t rounds = 0;
    double budget_s = 0, precision = 0.01;
    uint64_t seed = 0;  // of the per-round shuffle with three or more configurations
};

// Default rounds: 8 make a verdict reachable for typical spreads. With
// --time-budget a pilot fixes the number instead (suite/stop_rule.h).
inline constexpr uint64_t kDefaultRounds = 8;

// What a live compare ran: rounds[k][r] is configuration k's result in round r.
struct LiveRuns {
    std::vector<std::string> labels, shown;  // each configuration's label and options as given
    std::vector<std::vector<suite::RunReport>> rounds;
};

// Told after each round: rounds done, of how many, seconds so far and left.
using RoundObserver = std::function<void(uint64_t done, uint64_t rounds, double elapsed_s, double left_s)>;

// Told around each configuration's run in each round (compare
// --host-profile keeps a profile per run, so the round stays the unit).
struct RoundHooks {
    virtual ~RoundHooks() = default;
    // The hooks for configuration k's measured batches in this round.
    virtual suite::MeasureHooks* starting(size_t k) = 0;
    virtual void finished(size_t k) = 0;
    // The first n rounds stand; the rest were cut short, or were the pilot.
    virtual void keep_rounds(size_t n) = 0;
};

// Runs one configuration's plan once (one round's run), its measured batches
// told to `hooks` (may be nullptr): lab::execute on KVM, a fake in unit tests.
using RunOne = std::function<suite::RunReport(const RunPlan& plan, suite::MeasureHooks* hooks)>;

// Runs the configurations and compares them round by round; `header` gets
// the lines that say what ran (first the rounds, then one per configuration),
// `ran` (if given) the results; `hooks` (if given) hear of every run.
suite::ComparisonReport run_live(const RunOne& run_one, const std::vector<LiveConfig>& configs,
                                 LiveSchedule sched, double alpha, const std::atomic<bool>& interrupt,
                                 std::vector<std::string>& header, LiveRuns* ran = nullptr,
                                 const RoundObserver& on_round = {}, RoundHooks* hooks = nullptr);
// The same, each run on this host's KVM.
suite::ComparisonReport run_live(const kvm::System& sys, const std::vector<LiveConfig>& configs,
                                 LiveSchedule sched, double alpha, const std::atomic<bool>& interrupt,
                                 std::vector<std::string>& header, LiveRuns* ran = nullptr,
                                 const RoundObserver& on_round = {}, RoundHooks* hooks = nullptr);

// One configuration's rounds as one run whose sessions are the rounds (in
// round order), as `run --sessions N` would have saved them.
suite::RunReport merge_rounds(const std::vector<suite::RunReport>& rounds);

// A run to save to the history, and what to file it under.
struct LabelledRun {
    suite::RunReport run;
    std::string label, note;
};
// Each configuration's rounds as one run labelled BASE/CONFIG, BASE being
// `label` or compare-TIMESTAMP; `note` or one that names the configuration.
// Nothing when nothing ran.
std::vector<LabelledRun> runs_to_save(const LiveRuns& ran, const std::string& label, const std::string& note);

} // namespace eb::lab
