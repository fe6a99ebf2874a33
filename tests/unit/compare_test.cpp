// compare_saved / compare_rounds on small hand-made results: the unit chosen,
// the negative control, and what a side without samples says.
#include <gtest/gtest.h>

#include <random>

#include "cli/compare_live.h"
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
