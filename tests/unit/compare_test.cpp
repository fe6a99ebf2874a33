// compare_saved / compare_rounds on small hand-made results: the unit chosen,
// the negative control, and what a side without samples says.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "cli/compare_live.h"
#include "report/compare.h"
#include "suite/compare.h"

namespace {

using namespace eb::suite;

// A result with one test whose sessions have the given medians (5 repeats each, +-0.1%).
RunReport run_of(const std::string& test, std::vector<double> medians, uint64_t batch = 1024) {
    TestResult t{.name = test, .status = Status::Ok};
    for (double m : medians) t.sessions.push_back({{m * 0.999, m, m * 1.001, m, m}, batch});
    RunReport r;
    r.results.push_back(t);
    return r;
}

bool has(const std::vector<std::string>& lines, const std::string& part) {
    for (const auto& l : lines)
        if (l.find(part) != std::string::npos) return true;
    return false;
}

TEST(CompareSaved, SessionsOfOneFileEachAreTheUnits) {
    auto c = compare_saved({"A", "B"}, {{run_of("cpuid", {100, 101, 99, 100})}, {run_of("cpuid", {100, 99, 101, 100})}});
    EXPECT_EQ(c.unit, Unit::Session);
    const auto& e = c.tests[0].vs_first[0];
    EXPECT_EQ(e.units_a, 4u);
    EXPECT_EQ(e.verdict, Verdict::NoDifference);
}

TEST(CompareSaved, SeveralRunsOfSeveralSessionsMakeTheRunTheUnit) {
    auto c = compare_saved({"A", "B"}, {{run_of("cpuid", {100, 101}), run_of("cpuid", {102, 103})},
                                        {run_of("cpuid", {100, 101}), run_of("cpuid", {104, 103})}});
    EXPECT_EQ(c.unit, Unit::Run);
    EXPECT_EQ(c.tests[0].vs_first[0].units_a, 2u);
    EXPECT_FALSE(std::isnan(c.tests[0].configs[0].between_run_sd));
}

TEST(CompareSaved, TheBaselineMovingIsAWarning) {
    RunReport a = run_of("baseline", {100, 100.2, 99.8, 100.1}), b = run_of("baseline", {110, 110.3, 109.9, 110.1});
    auto c = compare_saved({"A", "B"}, {{a}, {b}});
    EXPECT_TRUE(has(c.warnings, "the empty loop (baseline) moved +10"));
}

TEST(CompareSaved, DifferentBatchSizesAreAWarning) {
    auto c = compare_saved({"A", "B"}, {{run_of("cpuid", {100, 101}, 1024)}, {run_of("cpuid", {100, 101}, 2048)}});
    EXPECT_TRUE(has(c.warnings, "batch sizes differ"));
}

TEST(CompareSaved, ASkippedSideSaysWhy) {
    RunReport b;
    b.results.push_back(TestResult{.name = "cpuid", .status = Status::Skipped,
                                   .detail = "guest: guest WRMSR 0x00000048 raised #GP"});
    auto c = compare_saved({"A", "B"}, {{run_of("cpuid", {100, 101})}, {b}});
    const auto& e = c.tests[0].vs_first[0];
    EXPECT_EQ(e.verdict, Verdict::NotTestable);
    EXPECT_NE(e.why.find("skipped: guest: guest WRMSR 0x00000048 raised #GP"), std::string::npos);
}

TEST(CompareSaved, TestsOnOneSideOnlyAreListed) {
    auto c = compare_saved({"A", "B"}, {{run_of("cpuid", {100, 101})}, {run_of("vmcall", {100, 101})}});
    EXPECT_TRUE(has(c.warnings, "partial overlap"));
    EXPECT_EQ(c.tests.size(), 2u);
}

TEST(CompareSaved, OneSessionASideAdvisesWhatToRun) {
    auto c = compare_saved({"A", "B"}, {{run_of("cpuid", {100})}, {run_of("cpuid", {103})}});
    EXPECT_EQ(c.tests[0].vs_first[0].verdict, Verdict::NotTestable);
    EXPECT_TRUE(has(c.advice, "--sessions"));
}

RunReport run_in_boot(const std::string& boot, std::vector<double> medians) {
    auto r = run_of("cpuid", std::move(medians));
    r.provenance.boot_id = boot;
    return r;
}

TEST(CompareSaved, RunsFromSeveralBootsReportTheBetweenBootSpreadApart) {
    // Side A: two boots 10% apart, two runs in each; side B: one boot.
    auto c = compare_saved({"A", "B"},
                           {{run_in_boot("b1", {100, 100.2}), run_in_boot("b1", {100.4, 100.1}),
                             run_in_boot("b2", {110, 110.3}), run_in_boot("b2", {110.5, 109.8})},
                            {run_in_boot("b3", {105, 105.1}), run_in_boot("b3", {105.3, 104.9})}});
    EXPECT_EQ(c.unit, Unit::Run);  // the verdict's unit does not change
    const auto& a = c.tests[0].configs[0];
    EXPECT_EQ(a.boots, 2u);
    EXPECT_TRUE(a.boot_holds_two_runs);
    // The boot means' log SD: |log(110.15) - log(100.18)| / sqrt(2), minus the runs' small share.
    EXPECT_NEAR(a.between_boot_sd, std::log(110.15 / 100.18) / std::sqrt(2.0), 0.003);
    const auto& b = c.tests[0].configs[1];
    EXPECT_EQ(b.boots, 1u);
    EXPECT_TRUE(std::isnan(b.between_boot_sd));
}

TEST(CompareSaved, BootsThatDoNotDifferShowNoBetweenBootSpread) {
    auto c = compare_saved({"A", "B"},
                           {{run_in_boot("b1", {100, 100.2}), run_in_boot("b1", {100.4, 100.1}),
                             run_in_boot("b2", {100.1, 100.3}), run_in_boot("b2", {100.2, 100.0})},
                            {run_in_boot("b3", {100, 100.1}), run_in_boot("b3", {100.3, 99.9})}});
    EXPECT_LT(c.tests[0].configs[0].between_boot_sd, 0.002);
}

// Simulated: boot offsets of sd 2%, runs inside a boot 0.3%, sessions 0.3%.
// The mean estimate over many trials lands on the true 2% times c4(6) = 0.9515,
// the known low bias of an SD from six values.
TEST(CompareSaved, BetweenBootSpreadEstimatesTheTrueOneInSimulation) {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> boot_off(0, 0.02), run_off(0, 0.003), ses_off(0, 0.003);
    double sum = 0;
    const int trials = 400;
    for (int i = 0; i < trials; ++i) {
        std::vector<RunReport> side;
        for (int b = 0; b < 6; ++b) {
            double boot = boot_off(rng);
            for (int r = 0; r < 2; ++r) {
                double run = boot + run_off(rng);
                side.push_back(run_in_boot("boot" + std::to_string(b),
                                           {100 * std::exp(run + ses_off(rng)), 100 * std::exp(run + ses_off(rng))}));
            }
        }
        auto c = compare_saved({"A", "B"}, {side, side});
        sum += c.tests[0].configs[0].between_boot_sd;
    }
    EXPECT_NEAR(sum / trials, 0.02 * 0.9515, 0.001);
}

TEST(CompareRounds, PairsRoundByRound) {
    // B is 1% slower in every round while the rounds drift by 5%: pairing sees it.
    std::vector<std::vector<RunReport>> rounds(2);
    for (int r = 0; r < 6; ++r) {
        double drift = 1 + 0.05 * (r % 3);
        rounds[0].push_back(run_of("cpuid", {100 * drift}));
        rounds[1].push_back(run_of("cpuid", {101 * drift * (r % 2 ? 1.001 : 0.999)}));
    }
    auto c = compare_rounds({"A", "B"}, rounds);
    EXPECT_EQ(c.unit, Unit::Round);
    const auto& e = c.tests[0].vs_first[0];
    EXPECT_EQ(e.verdict, Verdict::Slower);
    EXPECT_NEAR(e.ratio, 1.01, 0.002);
    EXPECT_EQ(e.units_a, 6u);
}

TEST(CompareRounds, OneRoundIsNotTestable) {
    auto c = compare_rounds({"A", "B"}, {{run_of("cpuid", {100})}, {run_of("cpuid", {101})}});
    EXPECT_EQ(c.tests[0].vs_first[0].verdict, Verdict::NotTestable);
    EXPECT_TRUE(has(c.advice, "more rounds"));
}

TEST(RoundOrder, TwoConfigurationsAlternate) {
    std::mt19937_64 rng(1);
    EXPECT_EQ(eb::cli::round_order(2, 0, rng), (std::vector<size_t>{0, 1}));
    EXPECT_EQ(eb::cli::round_order(2, 1, rng), (std::vector<size_t>{1, 0}));
    EXPECT_EQ(eb::cli::round_order(2, 2, rng), (std::vector<size_t>{0, 1}));
    auto three = eb::cli::round_order(3, 0, rng);
    std::sort(three.begin(), three.end());
    EXPECT_EQ(three, (std::vector<size_t>{0, 1, 2}));
}

} // namespace

// Sessions that agree more closely than their repeats do give a between-session
// estimate floored at 0; the report must not read that as "no spread".
TEST(CompareSaved, AFlooredBetweenSpreadIsShownAsWithinTheNoise) {
    RunReport a = run_of("cpuid", {100, 100, 100, 100}), b = run_of("cpuid", {100, 100, 100, 100});
    for (auto* r : {&a, &b})
        for (auto& s : r->results[0].sessions) s.samples = {90, 100, 110, 95, 105};  // noisy repeats, equal medians
    auto text = eb::report::render_comparison(compare_saved({"A", "B"}, {{a}, {b}}));
    EXPECT_NE(text.find("between sessions 0 (within the noise below)"), std::string::npos) << text;
    EXPECT_EQ(text.find("between sessions 0.00%"), std::string::npos) << text;
}
