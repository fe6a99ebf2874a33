// The module A/B's statistics, simulated through lab::run_module_ab (the
// code `compare --module` runs) on the fake host: each load of the module
// draws its own offset, heavy-tailed (t with 3 df), the host drifts slot by
// slot, and repeats have a heavy tail. With nothing changed, "faster" or
// "slower" stays near alpha; a real change is found; two loads a side are
// never a verdict.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "lab/module_ab.h"
#include "module_fake.h"

namespace {

using namespace eb;

struct Cell {
    double effect = 0;    // log(B / A), npt=0 against npt=1
    unsigned loads = 3;   // a side
};

constexpr double kLoadSd = 0.02, kDriftPerSlot = 0.004, kRepeatSd = 0.01;

// The run of one slot: its load's offset (drawn once per load), the drift so
// far, the side's effect, and 3 sessions of 5 repeats, 5% of them +55%.
struct Model {
    std::mt19937_64 rng;
    int load_seen = -1;
    double load_offset = 0;
    int slot = 0;
    suite::RunReport run(const test::FakeModules& h, double effect) {
        if (h.loads != load_seen) {
            load_seen = h.loads;
            load_offset = kLoadSd * std::student_t_distribution<double>(3)(rng) / std::sqrt(3.0);
        }
        std::normal_distribution<double> z(0, 1);
        std::uniform_real_distribution<double> u(0, 1);
        bool b = h.mods.at("kvm_amd").values.at("npt") == "N";
        double level = std::log(1000) + load_offset + kDriftPerSlot * slot++ + (b ? effect : 0);
        suite::TestResult t{.name = "cpuid", .status = suite::Status::Ok};
        for (int s = 0; s < 3; ++s) {
            std::vector<double> reps;
            for (int r = 0; r < 5; ++r) reps.push_back(std::exp(level + kRepeatSd * z(rng) + (u(rng) < 0.05 ? 0.44 : 0)));
            t.sessions.push_back({reps, 1024});
        }
        suite::RunReport rep;
        rep.results.push_back(t);
        return rep;
    }
};

struct Tally {
    int verdicts = 0, right = 0, not_testable = 0, restored = 0;
};

Tally simulate(const Cell& c, int trials, uint64_t seed) {
    Tally out;
    Model m{std::mt19937_64(seed)};
    for (int i = 0; i < trials; ++i) {
        auto h = test::amd_host();
        auto before = h.params("kvm_amd");
        m.slot = 0;
        std::atomic<bool> stop{false};
        lab::SlotRunner run = [&](const std::vector<std::string>&) { return lab::SlotRun{0, m.run(h, c.effect)}; };
        lab::ModuleAbSpec spec{"kvm_amd", {"npt=1", "npt=0"}, c.loads, {"run", "cpuid"}};
        auto done = lab::run_module_ab(spec, h, run, {"A", "B"}, 0.05, stop);
        const auto& e = done.cmp->tests[0].vs_first[0];
        out.not_testable += e.verdict == suite::Verdict::NotTestable;
        bool verdict = e.verdict == suite::Verdict::Faster || e.verdict == suite::Verdict::Slower;
        out.verdicts += verdict;
        out.right += e.verdict == (c.effect > 0 ? suite::Verdict::Slower : suite::Verdict::Faster);
        out.restored += done.restore_ok && h.params("kvm_amd") == before;
    }
    return out;
}

TEST(ModuleAbSim, NothingChangedStaysNearAlphaUnderHeavyTailedLoadsAndDrift) {
    constexpr int kTrials = 400;
    auto t = simulate({0, 3}, kTrials, 7);
    double rate = double(t.verdicts) / kTrials;
    // alpha plus three binomial standard errors at 400 trials.
    EXPECT_LE(rate, 0.05 + 3 * std::sqrt(0.05 * 0.95 / kTrials)) << t.verdicts << " of " << kTrials;
    EXPECT_EQ(t.restored, kTrials);
    std::printf("module A/B, no change, 3 loads a side: %d of %d trials gave a verdict (%.1f%%)\n", t.verdicts,
                kTrials, 100 * rate);
}

TEST(ModuleAbSim, ATenPercentChangeIsFoundWithThreeLoadsASide) {
    constexpr int kTrials = 200;
    auto t = simulate({std::log(1.10), 3}, kTrials, 11);
    EXPECT_GE(t.right, kTrials * 8 / 10) << t.right << " of " << kTrials;
    EXPECT_EQ(t.verdicts, t.right);  // never the wrong direction
    std::printf("module A/B, +10%%, 3 loads a side: found in %d of %d trials\n", t.right, kTrials);
}

TEST(ModuleAbSim, TwoLoadsASideAreNeverAVerdict) {
    auto t = simulate({std::log(1.10), 2}, 100, 13);
    EXPECT_EQ(t.not_testable, 100);
    EXPECT_EQ(t.verdicts, 0);
}

} // namespace
