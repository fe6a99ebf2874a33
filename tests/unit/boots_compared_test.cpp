// The host-kernel A/B and bisect-step use cases through their boot seam: no
// QEMU, no /dev/kvm. Each fake boot brings back one run with its boot id.
#include <gtest/gtest.h>

#include <random>

#include "lab/boots_compared.h"

namespace eb::lab {
namespace {

using suite::RunReport;

// One run of cpuid in its own boot: 3 sessions around `median`.
RunReport booted_run(const std::string& boot, double median) {
    suite::TestResult t{.name = "cpuid", .status = suite::Status::Ok};
    for (double m : {median * 0.999, median, median * 1.001}) t.sessions.push_back({{m, m, m, m, m}, 1024});
    RunReport r;
    r.results.push_back(t);
    r.provenance.boot_id = boot;
    return r;
}

// Boots whose side B is `shift` slower, each boot's offset drawn (sd 0.5%).
std::function<BootOutcome(int)> fake_boots(double shift, int fail_call = -1) {
    auto calls = std::make_shared<int>(0);
    auto rng = std::make_shared<std::mt19937>(7);
    return [=](int side) {
        BootOutcome o;
        int call = (*calls)++;
        o.boot_id = "boot-" + std::to_string(call);
        if (call == fail_call) {
            o.failure = "kernel panic: not syncing";
            return o;
        }
        std::normal_distribution<double> offset(0, 0.005);
        o.report = booted_run(o.boot_id, 1000 * (side ? 1 + shift : 1) * (1 + offset(*rng)));
        return o;
    };
}

TEST(BootsCompared, TheBootIsTheUnitAndATrueShiftIsFound) {
    std::atomic<bool> stop{false};
    auto done = boot_and_compare(counterbalanced(4), fake_boots(0.10), {"A: k", "B: k 'x=1'"}, 0.05, false, stop);
    ASSERT_TRUE(done.cmp);
    EXPECT_EQ(done.cmp->unit, suite::Unit::Boot);
    const auto& e = done.cmp->tests[0].vs_first[0];
    EXPECT_EQ(e.units_a, 4u);
    EXPECT_EQ(e.verdict, suite::Verdict::Slower);
    EXPECT_NEAR(e.ratio, 1.10, 0.02);
}

TEST(BootsCompared, OneBootASideIsNotTestable) {
    std::atomic<bool> stop{false};
    auto done = boot_and_compare(counterbalanced(1), fake_boots(0.10), {"A", "B"}, 0.05, false, stop);
    ASSERT_TRUE(done.cmp);
    EXPECT_EQ(done.cmp->tests[0].vs_first[0].verdict, suite::Verdict::NotTestable);
}

TEST(BootsCompared, AFailedBootIsRetriedAndSaidInTheWarnings) {
    std::atomic<bool> stop{false};
    auto done = boot_and_compare(counterbalanced(3), fake_boots(0, 1), {"A", "B"}, 0.05, true, stop);
    ASSERT_TRUE(done.cmp);
    EXPECT_EQ(done.runs.sides[1].size(), 3u) << "the retry brought the boot back";
    bool failed = false, emulated = false;
    for (const auto& w : done.cmp->warnings) {
        failed |= w.find("boot 2 (B) failed: kernel panic") != std::string::npos;
        emulated |= w == suite::kEmulatedNote;
    }
    EXPECT_TRUE(failed);
    EXPECT_TRUE(emulated);
}

TEST(BootsCompared, ASideWithoutAFinishedBootHasNoComparison) {
    std::atomic<bool> stop{false};
    auto never = [](int) { BootOutcome o; o.failure = "no kernel"; return o; };
    auto done = boot_and_compare(counterbalanced(1), never, {"A: k", "B: k"}, 0.05, false, stop);
    EXPECT_FALSE(done.cmp);
    EXPECT_EQ(done.why_not, "not testable: A: k has no finished boot");
    EXPECT_EQ(done.runs.short_sides.size(), 2u);
}

TEST(BootsCompared, BisectSetsTheCandidatesBootsAgainstTheSavedOnes) {
    std::vector<RunReport> good;
    for (int i = 0; i < 3; ++i) good.push_back(booted_run("good-" + std::to_string(i), 1000 * (1 + 0.001 * i)));
    std::atomic<bool> stop{false};
    // Side 0's boots are the candidate's: 10% slower than the good ones.
    auto slower = [n = 0](int) mutable {
        BootOutcome o;
        o.boot_id = "cand-" + std::to_string(n);
        o.report = booted_run(o.boot_id, 1100 * (1 + 0.001 * n++));
        return o;
    };
    auto done = boot_and_compare(std::vector<int>(3, 0), slower, {"label:good", "candidate"}, 0.05, false, stop, {},
                                 good);
    ASSERT_TRUE(done.cmp);
    ASSERT_EQ(done.sides.size(), 2u);
    EXPECT_EQ(done.sides[0].size(), 3u);
    EXPECT_EQ(done.cmp->tests[0].vs_first[0].verdict, suite::Verdict::Slower);
}

TEST(BootsCompared, AnInterruptComparesTheBootsThatFinished) {
    std::atomic<bool> stop{false};
    auto boots = fake_boots(0);
    int n = 0;
    auto done = boot_and_compare(counterbalanced(3), [&](int side) {
        if (++n == 3) stop = true;
        return boots(side);
    }, {"A", "B"}, 0.05, false, stop);
    ASSERT_TRUE(done.cmp);
    EXPECT_TRUE(done.runs.interrupted);
    EXPECT_EQ(done.runs.sides[0].size() + done.runs.sides[1].size(), 3u);
}

TEST(BootsCompared, ASideIsDescribedByItsImageCommandLineAndParameters) {
    EXPECT_EQ(describe("/boot/vmlinuz-6.1.0-57-amd64", "mitigations=off", {"kvm_amd avic=1"}),
              "vmlinuz-6.1.0-57-amd64 'mitigations=off' [kvm_amd avic=1]");
}

} // namespace
} // namespace eb::lab
