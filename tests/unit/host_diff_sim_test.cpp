// compare --host-profile's verdicts (profile::host_diff, the code the command
// runs after its rounds) against simulated rounds: per round and
// configuration, a test's sampled batches cost c (ns an iteration, moved by
// the round's drift, shared by both configurations, and by each run's own
// noise), and N samples fall on a call tree by multinomial shares. Null: A
// and B alike; then one function's cost made 10% higher in B. False verdicts
// per function and per family, power, and coverage of the per-function
// interval of B - A, at spreads 0.5x to 3x, with heavy tails and run drift.
// The table is the one docs/statistics.md quotes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <random>

#include "profile/host_diff.h"

namespace {

using namespace eb::profile;

// 1000 trials a cell; EB_SIM_TRIALS=N runs N instead, to pin a rate down.
const int kTrials = [] {
    const char* n = std::getenv("EB_SIM_TRIALS");
    return n && std::atoi(n) >= 100 ? std::atoi(n) : 1000;
}();
constexpr double kTscMhz = 1000;        // a cycle is a ns
constexpr double kCycles = 20000;       // an iteration's cost
constexpr uint64_t kSamples = 4000;     // a run's samples of the test

// The call tree: root-first stacks and each one's share of the samples.
struct Leaf {
    std::vector<std::string> stack;
    double share;
};
const std::vector<Leaf> kTree = {
    {{"vcpu_run", "vcpu_enter_guest", "[guest]"}, 0.40},
    {{"vcpu_run", "vcpu_enter_guest", "svm_vcpu_run"}, 0.15},
    {{"vcpu_run", "handle_exit", "kvm_emulate_cpuid"}, 0.15},
    {{"vcpu_run", "handle_exit", "kvm_skip_emulated_instruction"}, 0.10},
    {{"vcpu_run", "kvm_load_guest_xsave_state"}, 0.10},
    {{"vcpu_run", "srso_return_thunk"}, 0.10},
};

struct Cell {
    const char* name;
    int rounds = 8;
    double scale = 1;        // every spread times the nominal
    double drift_sd = 0.01;  // a round's drift of the cost, shared by both configurations
    double run_sd = 0.01;    // each run's own
    bool t3 = false;         // drift and run noise t with 3 df (scaled to their SD)
    // Saved runs (profile compare RUN... --vs RUN..., host_diff_runs): each
    // side's runs apart, days apart, so the drift is each run's own, not shared.
    bool saved = false;
};

double noise(std::mt19937_64& rng, const Cell& c, double sd) {
    if (!c.t3) return sd * std::normal_distribution<double>(0, 1)(rng);
    return sd * std::student_t_distribution<double>(3)(rng) / std::sqrt(3.0);
}

// One run's profile: `boost` is B's extra cost of leaf 2 (kvm_emulate_cpuid), relative.
TestHostProfile run(std::mt19937_64& rng, const Cell& c, double drift, double boost) {
    std::vector<double> w;
    for (size_t i = 0; i < kTree.size(); ++i) w.push_back(kTree[i].share * (i == 2 ? 1 + boost : 1));
    double total = 0;
    for (double x : w) total += x;
    TestHostProfile p;
    p.test = "cpuid";
    std::discrete_distribution<size_t> pick(w.begin(), w.end());
    std::vector<uint64_t> n(kTree.size());
    for (uint64_t s = 0; s < kSamples; ++s) ++n[pick(rng)];
    for (size_t i = 0; i < kTree.size(); ++i)
        if (n[i]) p.add(kTree[i].stack, n[i]);
    // The extra time of the boosted function adds to the iteration's cost.
    double cost = kCycles * total * std::exp(drift + noise(rng, c, c.run_sd * c.scale));
    p.sampled = {1, 1000, cost * 1000};
    return p;
}

struct Rates {
    double false_per_function = 0, fwer = 0, power = 0, covered = 0;
};

Rates measure(const Cell& c, double boost, uint64_t seed) {
    std::mt19937_64 rng(seed);
    Rates r;
    double functions = 0;
    for (int i = 0; i < kTrials; ++i) {
        HostDiff d;
        if (c.saved) {
            std::vector<RunProfiles> a, b;
            for (int k = 0; k < c.rounds; ++k) {
                a.push_back({{run(rng, c, noise(rng, c, c.drift_sd * c.scale), 0)}, kTscMhz});
                b.push_back({{run(rng, c, noise(rng, c, c.drift_sd * c.scale), boost)}, kTscMhz});
            }
            d = host_diff_runs("A", "B", a, b);
        } else {
            std::vector<RoundProfiles> a, b;
            for (int k = 0; k < c.rounds; ++k) {
                double drift = noise(rng, c, c.drift_sd * c.scale);
                a.push_back({run(rng, c, drift, 0)});
                b.push_back({run(rng, c, drift, boost)});
            }
            d = host_diff("A", "B", a, b, kTscMhz);
        }
        bool any = false;
        for (const auto& f : d.functions) {
            bool moved = f.move == Move::Up || f.move == Move::Down;
            // Under the boost, only kvm_emulate_cpuid and its callers truly move.
            bool truly = boost > 0 && (f.function == "kvm_emulate_cpuid" || f.function == "handle_exit" ||
                                       f.function == "vcpu_run");
            if (!truly) {
                functions += 1;
                r.false_per_function += moved;
                any = any || moved;
            }
            if (f.function == "kvm_emulate_cpuid" && boost > 0) r.power += moved;
            if (f.function == "srso_return_thunk" && boost == 0)
                r.covered += f.t.ci.lo <= 0 && 0 <= f.t.ci.hi;  // a function nothing moves
        }
        r.fwer += any;
    }
    r.false_per_function /= std::max(1.0, functions);
    r.fwer /= kTrials;
    r.power /= kTrials;
    r.covered /= kTrials;
    return r;
}

double mc_se(double p) { return std::sqrt(p * (1 - p) / kTrials); }

class HostDiffSimulated : public ::testing::TestWithParam<Cell> {};

// Null families: false verdicts per function and per family at most 5% (+3
// Monte Carlo SE); coverage of a function nothing moves; power at +10%.
TEST_P(HostDiffSimulated, FalseVerdictsPowerAndCoverage) {
    const Cell c = GetParam();
    uint64_t seed = std::hash<std::string>{}(c.name);
    Rates null = measure(c, 0, seed), ten = measure(c, 0.10, seed + 1);
    fmt::print("| {:<50} | {:>6.2f}% +-{:.2f} | {:>6.2f}% +-{:.2f} | {:>11.1f}% | {:>13.1f}% |\n", c.name,
               null.false_per_function * 100, mc_se(null.false_per_function) * 100, null.fwer * 100,
               mc_se(null.fwer) * 100, ten.power * 100, null.covered * 100);
    double se05 = mc_se(0.05), se95 = mc_se(0.95);
    EXPECT_LE(null.false_per_function, 0.05 + 3 * se05);
    EXPECT_LE(null.fwer, 0.05 + 3 * se05) << "Holm over the functions keeps the family's rate";
    if (!c.t3) {
        EXPECT_GE(null.covered, 0.93 - 3 * se95);
        EXPECT_LE(null.covered, 0.97 + 3 * se95);
    }
}

Cell make(const char* name, double scale, bool t3 = false, double drift = 0.01, bool saved = false) {
    return Cell{.name = name, .scale = scale, .drift_sd = drift, .t3 = t3, .saved = saved};
}

INSTANTIATE_TEST_SUITE_P(
    Paths, HostDiffSimulated,
    ::testing::Values(make("profile compare, 8 rounds, spreads 0.5x", 0.5), make("profile compare, 8 rounds, spreads 1x", 1),
                      make("profile compare, 8 rounds, spreads 2x", 2), make("profile compare, 8 rounds, spreads 3x", 3),
                      make("profile compare, 8 rounds, heavy tails (t3)", 1, true),
                      make("profile compare, 8 rounds, run drift 5x", 1, false, 0.05),
                      make("saved runs, 8 a side, spreads 1x", 1, false, 0.01, true),
                      make("saved runs, 8 a side, heavy tails (t3)", 1, true, 0.01, true),
                      make("saved runs, 8 a side, run drift 5x", 1, false, 0.05, true)),
    [](const ::testing::TestParamInfo<Cell>& p) { return fmt::format("path{}", p.index); });

// One saved run a side: no verdict, whatever the difference; a function
// sampled on one side only is listed however small its share.
TEST(HostDiffSavedRuns, OneRunASideIsNotTestableAndOneSidedFunctionsShow) {
    std::mt19937_64 rng(7);
    Cell c = make("one run", 1, false, 0.01, true);
    auto a = run(rng, c, 0, 0), b = run(rng, c, 0, 0.5);
    b.add({"vcpu_run", "handle_exit", "new_mitigation_path"}, 2);  // 2 of ~4000 samples: 0.05%
    auto d = host_diff_runs("A", "B", {{{a}, kTscMhz}}, {{{b}, kTscMhz}});
    EXPECT_FALSE(d.paired);
    EXPECT_EQ(d.family, 0u);
    ASSERT_FALSE(d.functions.empty());
    for (const auto& f : d.functions) {
        EXPECT_EQ(f.move, Move::NotTestable) << f.function;
        EXPECT_NE(f.why.find("one run a side"), std::string::npos) << f.why;
    }
    ASSERT_EQ(d.one_sided.size(), 1u);
    EXPECT_EQ(d.one_sided[0].function, "new_mitigation_path");
    EXPECT_TRUE(d.one_sided[0].in_b);
    EXPECT_EQ(d.one_sided[0].samples, 2u);
    EXPECT_GT(d.one_sided[0].ns, 0);
}

} // namespace
