// compare_saved / compare_rounds on small hand-made results: the unit chosen,
// the negative control, and what a side without samples says.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <fmt/format.h>

#include "lab/compare_live.h"
#include "report/compare.h"
#include "suite/compare.h"
#include "suite/gate.h"
#include "suite/stop_rule.h"

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

// docs/statistics.md's own example: one run a side of 4 sessions. The sessions share
// their run's process, so a 5% shift between the runs is no verdict.
TEST(CompareSaved, OneRunASideIsNotTestableAtTheRunLevel) {
    auto c = compare_saved({"A", "B"}, {{run_of("cpuid", {100, 101, 99, 100})}, {run_of("cpuid", {105, 104, 106, 105})}});
    EXPECT_EQ(c.unit, Unit::Run);
    const auto& e = c.tests[0].vs_first[0];
    EXPECT_EQ(e.units_a, 1u);
    EXPECT_EQ(e.verdict, Verdict::NotTestable);
    EXPECT_TRUE(std::isnan(e.p));
    EXPECT_NEAR(e.ratio, 1.05, 0.001);
    EXPECT_NE(e.why.find("not testable at the run level (1 vs 1 run): observed +5.00%; the sessions inside one run "
                         "spread"), std::string::npos) << e.why;
    EXPECT_TRUE(has(c.advice, "exitbench compare A1.json A2.json A3.json --vs B1.json B2.json B3.json")) << c.advice[0];
    EXPECT_TRUE(has(c.unseen, "boot: a run has no boot id recorded"));
    EXPECT_EQ(gate(c, 0).outcome, GateOutcome::NotTestable);
}

TEST(CompareSaved, MixedCountsStayAtTheRunLevel) {
    auto c = compare_saved({"A", "B"}, {{run_of("cpuid", {100, 101, 99}), run_of("cpuid", {100, 100.5, 99})},
                                        {run_of("cpuid", {110, 111, 109})}});
    const auto& e = c.tests[0].vs_first[0];
    EXPECT_EQ(e.units_a, 2u);
    EXPECT_EQ(e.units_b, 1u);
    EXPECT_EQ(e.verdict, Verdict::NotTestable);
    EXPECT_NE(e.why.find("(2 vs 1 runs)"), std::string::npos) << e.why;
}

TEST(CompareSaved, SidesFromDifferentBootsMakeTheBootTheUnit) {
    std::vector<RunReport> a{run_of("cpuid", {100, 101}), run_of("cpuid", {100.5, 101})},
        b{run_of("cpuid", {103, 104}), run_of("cpuid", {103.5, 104})};
    for (auto& r : a) r.provenance.boot_id = "before";
    for (auto& r : b) r.provenance.boot_id = "after";
    auto c = compare_saved({"A", "B"}, {a, b});
    EXPECT_EQ(c.unit, Unit::Boot);
    EXPECT_TRUE(c.unseen.empty());
    const auto& e = c.tests[0].vs_first[0];
    EXPECT_EQ(e.verdict, Verdict::NotTestable);
    EXPECT_NE(e.why.find("not testable at the boot level (1 vs 1 boot)"), std::string::npos) << e.why;
    EXPECT_TRUE(has(c.advice, "3 or more boots"));
    // The same runs in one boot: the run is the unit, and boots are what it cannot see.
    for (auto& r : b) r.provenance.boot_id = "before";
    c = compare_saved({"A", "B"}, {a, b});
    EXPECT_EQ(c.unit, Unit::Run);
    EXPECT_NE(c.tests[0].vs_first[0].verdict, Verdict::NotTestable);
    EXPECT_TRUE(has(c.unseen, "every run comes from the same boot"));
}

// Runs of one boot made in different loads of a module: the load is the unit,
// and it needs three loads a side.
TEST(CompareSaved, SidesFromDifferentModuleLoadsMakeTheLoadTheUnit) {
    auto side = [](double level, const char* name, int loads) {
        std::vector<RunReport> out;
        for (int i = 0; i < loads; ++i) {
            out.push_back(run_of("cpuid", {level + i * 0.3, level + i * 0.3 + 0.2}));
            out.back().provenance.boot_id = "one boot";
            out.back().provenance.module_load = ModuleLoad{"kvm_amd", fmt::format("{}{}", name, i), {{"npt", "Y"}}};
        }
        return out;
    };
    auto c = compare_saved({"A", "B"}, {side(100, "a", 2), side(110, "b", 2)});
    EXPECT_EQ(c.unit, Unit::Load);
    EXPECT_TRUE(has(c.unseen, "every run comes from the same boot"));
    const auto& e = c.tests[0].vs_first[0];
    EXPECT_EQ(e.verdict, Verdict::NotTestable);  // 2 loads a side would do for runs; not for loads
    EXPECT_NE(e.why.find("not testable at the load level (2 vs 2 loads)"), std::string::npos) << e.why;
    EXPECT_NE(e.why.find("a verdict needs 3 loads a side"), std::string::npos) << e.why;
    EXPECT_TRUE(has(c.advice, "--loads 3"));
    c = compare_saved({"A", "B"}, {side(100, "a", 3), side(110, "b", 3)});
    EXPECT_EQ(c.unit, Unit::Load);
    EXPECT_EQ(c.tests[0].vs_first[0].verdict, Verdict::Slower);
    EXPECT_EQ(c.tests[0].configs[0].loads, 3u);
    EXPECT_EQ(c.boot_ids, (std::vector<std::vector<std::string>>{{"a0", "a1", "a2"}, {"b0", "b1", "b2"}}));
    // Every run in one load (parameters set at run time): the run is the unit.
    auto a = side(100, "a", 3), b = side(110, "b", 3);
    for (auto* s : {&a, &b})
        for (auto& r : *s) r.provenance.module_load->id = "the one load";
    c = compare_saved({"A", "B"}, {a, b});
    EXPECT_EQ(c.unit, Unit::Run);
    EXPECT_TRUE(has(c.unseen, "every run comes from the same load of the module"));
    // Boots that differ outrank loads.
    b = side(110, "b", 3);
    for (auto& r : b) r.provenance.boot_id = "another boot";
    EXPECT_EQ(compare_saved({"A", "B"}, {side(100, "a", 3), b}).unit, Unit::Boot);
}

// A side whose test failed or mismatched kept its samples; it still gets no verdict.
TEST(CompareSaved, AFailedOrMismatchedSideIsNotTestable) {
    for (auto st : {Status::Mismatch, Status::Failed, Status::Hung}) {
        auto b1 = run_of("cpuid", {120, 121}), b2 = run_of("cpuid", {120, 122});
        b2.results[0].status = st;
        b2.results[0].detail = "why it ended so";
        auto c = compare_saved({"A", "B"}, {{run_of("cpuid", {100, 101}), run_of("cpuid", {100, 100.5})}, {b1, b2}});
        const auto& e = c.tests[0].vs_first[0];
        EXPECT_EQ(e.verdict, Verdict::NotTestable) << status_name(st);
        EXPECT_NE(e.why.find(std::string("under 'B' the test ended ") + status_name(st) + ": why it ended so"),
                  std::string::npos) << e.why;
        EXPECT_EQ(gate(c, 0).outcome, GateOutcome::NotTestable);
    }
}

// Identical unit medians on each side are not certainty: no p = 0, no 0% interval.
TEST(CompareSaved, ZeroSpreadAtTheUnitLevelIsNotTestable) {
    RunReport a = run_of("cpuid", {100}), b = run_of("cpuid", {101});
    auto c = compare_saved({"A", "B"}, {{a, a, a}, {b, b, b}});
    const auto& e = c.tests[0].vs_first[0];
    EXPECT_EQ(e.verdict, Verdict::NotTestable);
    EXPECT_TRUE(std::isnan(e.p));
    EXPECT_TRUE(std::isinf(e.detectable));
    EXPECT_NE(e.why.find("zero spread at the run level"), std::string::npos) << e.why;
    auto text = eb::report::render_comparison(c);
    EXPECT_EQ(text.find("p = 0"), std::string::npos) << text;
    EXPECT_EQ(text.find("detectable with 80% power at this spread, in this family: 0.00%"), std::string::npos) << text;
    EXPECT_EQ(gate(c, 0).outcome, GateOutcome::NotTestable);
}

TEST(CompareSaved, SessionsWithANonPositiveMedianAreCountedAndNamed) {
    auto a = run_of("cpuid", {100, 101, 99, 100});
    a.results[0].sessions[1].samples = {0, 0, 0};
    a.results[0].sessions[3].samples = {-5, -4, -6};
    auto c = compare_saved({"A", "B"}, {{a, run_of("cpuid", {100, 101})}, {run_of("cpuid", {100}), run_of("cpuid", {101})}});
    const auto& s = c.tests[0].configs[0];
    EXPECT_EQ(s.sessions, 4u);
    EXPECT_EQ(s.dropped, (std::vector<std::string>{"run 1 session 2", "run 1 session 4"}));
    EXPECT_TRUE(has(c.warnings, "cpuid under 'A': 2 (run 1 session 2, run 1 session 4)"));
    EXPECT_NE(eb::report::render_comparison(c).find("2 left out: median not positive"), std::string::npos);
}

// An imported kvm-unit-tests figure against exitbench runs: descriptive only.
TEST(CompareSaved, ImportedFiguresAreDescriptiveOnly) {
    std::vector<RunReport> a{run_of("cpuid", {100}), run_of("cpuid", {101})};
    for (auto& r : a) r.provenance.imported = ImportSource{};
    auto c = compare_saved({"kut", "B"}, {a, {run_of("cpuid", {120, 121}), run_of("cpuid", {122, 121})}});
    const auto& e = c.tests[0].vs_first[0];
    EXPECT_EQ(e.verdict, Verdict::NotTestable);
    EXPECT_NE(e.why.find("descriptive only"), std::string::npos) << e.why;
    EXPECT_NEAR(e.ratio, 1.2, 0.02);
}

// 20 tests, one with a raw p near 0.01: read alone it is "slower", in the
// family it is not. The baseline stays outside the family.
TEST(CompareSaved, AFamilyUsesHolmAdjustedP) {
    std::mt19937_64 rng(5);
    std::normal_distribution<double> z(0, 0.01);
    std::vector<RunReport> a(4), b(4);
    for (int t = 0; t < 21; ++t) {
        std::string name = t == 20 ? "baseline" : "t" + std::to_string(t);
        double shift = t == 0 ? 0.03 : 0;
        for (int r = 0; r < 4; ++r) {
            a[r].results.push_back(run_of(name, {100 * std::exp(z(rng))}).results[0]);
            b[r].results.push_back(run_of(name, {100 * std::exp(shift + z(rng))}).results[0]);
        }
    }
    auto c = compare_saved({"A", "B"}, {a, b});
    EXPECT_EQ(c.family, 20u);
    const auto& e = c.tests[0].vs_first[0];
    ASSERT_LT(e.p, 0.05);
    EXPECT_GT(e.p_holm, e.p);
    for (const auto& t : c.tests) {
        const auto& x = t.vs_first[0];
        EXPECT_EQ(x.verdict == Verdict::NoDifference, x.p_holm >= 0.05) << t.test;
        EXPECT_LE(x.p, x.q_bh);
        EXPECT_LE(x.q_bh, x.p_holm + 1e-15);
    }
    EXPECT_DOUBLE_EQ(c.tests[20].vs_first[0].p_holm, c.tests[20].vs_first[0].p);  // the control, alone
    auto text = eb::report::render_comparison(c);
    EXPECT_NE(text.find("family: 20 comparisons"), std::string::npos) << text;
    EXPECT_NE(text.find("1.0 of them would look significant by chance"), std::string::npos) << text;
}

// Three runs a side, each B run truly `slow` slower; the gate's rule in numbers.
ComparisonReport three_runs(double slow, std::vector<double> noise = {0.999, 1.0, 1.001}) {
    std::vector<RunReport> a, b;
    for (double n : noise) {
        a.push_back(run_of("cpuid", {100 * n, 100 * n}));
        b.push_back(run_of("cpuid", {100 * slow / n, 100 * slow / n}));
    }
    return compare_saved({"A", "B"}, {a, b});
}

TEST(Gate, FailsOnlyWhenTheSlowdownIsShownToExceedPct) {
    // +2% with a tight interval: slower, but not shown to exceed 2%: passes a PCT 2 gate.
    auto c = three_runs(1.02);
    ASSERT_EQ(c.tests[0].vs_first[0].verdict, Verdict::Slower);
    auto g = gate(c, 2);
    EXPECT_EQ(g.outcome, GateOutcome::Clear);
    ASSERT_EQ(g.slower.size(), 1u);  // still listed
    EXPECT_FALSE(g.slower[0].fails);
    EXPECT_GT(g.slower[0].p_over, 0.4);
    // +3% with the same spread: the interval's lower end is above +2%.
    g = gate(three_runs(1.03), 2);
    EXPECT_EQ(g.outcome, GateOutcome::Regression);
    EXPECT_LT(g.slower[0].p_over, 0.025);
}

TEST(Gate, ARegressionIsFoundEvenWhenAnotherTestIsNotTestable) {
    auto c = three_runs(1.10);
    auto skipped = c.tests[0];
    skipped.test = "vmcall";
    skipped.vs_first[0].verdict = Verdict::NotTestable;
    skipped.vs_first[0].why = "under 'B' the test ended skipped";
    c.tests.push_back(skipped);
    auto g = gate(c, 5);
    EXPECT_EQ(g.outcome, GateOutcome::Regression);
    EXPECT_EQ(g.not_testable.size(), 1u);
}

TEST(CompareSaved, SeveralRunsOfSeveralSessionsMakeTheRunTheUnit) {
    auto c = compare_saved({"A", "B"}, {{run_of("cpuid", {100, 101}), run_of("cpuid", {102, 103})},
                                        {run_of("cpuid", {100, 101}), run_of("cpuid", {104, 103})}});
    EXPECT_EQ(c.unit, Unit::Run);
    EXPECT_EQ(c.tests[0].vs_first[0].units_a, 2u);
    EXPECT_FALSE(std::isnan(c.tests[0].configs[0].between_run_sd));
}

TEST(CompareSaved, TheBaselineMovingIsAWarning) {
    auto c = compare_saved({"A", "B"}, {{run_of("baseline", {100, 100.2}), run_of("baseline", {99.8, 100.1})},
                                        {run_of("baseline", {110, 110.3}), run_of("baseline", {109.9, 110.1})}});
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
    EXPECT_TRUE(has(c.advice, "save 3 or more runs a side interleaved in time (exitbench run cpuid --json A1.json"));
}

RunReport run_in_boot(const std::string& boot, std::vector<double> medians) {
    auto r = run_of("cpuid", std::move(medians));
    r.provenance.boot_id = boot;
    return r;
}

TEST(CompareSaved, RunsFromSeveralBootsReportTheBetweenBootSpreadApart) {
    // Side A: two boots 10% apart, two runs in each; side B: another boot.
    auto c = compare_saved({"A", "B"},
                           {{run_in_boot("b1", {100, 100.2}), run_in_boot("b1", {100.4, 100.1}),
                             run_in_boot("b2", {110, 110.3}), run_in_boot("b2", {110.5, 109.8})},
                            {run_in_boot("b3", {105, 105.1}), run_in_boot("b3", {105.3, 104.9})}});
    EXPECT_EQ(c.unit, Unit::Boot);  // the boots differ between the sides
    EXPECT_EQ(c.tests[0].vs_first[0].units_a, 2u);
    const auto& a = c.tests[0].configs[0];
    EXPECT_EQ(a.boots, 2u);
    EXPECT_FALSE(std::isnan(a.between_run_sd));
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

// Stein's two-stage number from a pilot whose per-round log ratios have SD
// sqrt(2.5e-4): n = (t_{0.975,4} * s0 / log 1.01)^2 = 19.46, so 20 rounds.
TEST(StopRule, ThePilotFixesTheRounds) {
    std::vector<std::vector<RunReport>> pilot(2);
    for (double d : {0.01, -0.01, 0.02, -0.02, 0.0}) {
        pilot[0].push_back(run_of("cpuid", {100}));
        pilot[1].push_back(run_of("cpuid", {100 * std::exp(d)}));
    }
    auto c = compare_rounds({"A", "B"}, pilot);
    EXPECT_EQ(planned_rounds(c, 0.01, 1000), 20u);
    EXPECT_EQ(planned_rounds(c, 0.01, 12), 12u);        // at most --rounds
    EXPECT_EQ(planned_rounds(c, 0.5, 1000), kPilotRounds);  // never fewer than the pilot's
    c.tests[0].vs_first[0].verdict = Verdict::NotTestable;
    EXPECT_EQ(planned_rounds(c, 0.01, 77), 77u);        // no spread to plan with: the cap
}

TEST(RoundOrder, TwoConfigurationsAlternate) {
    std::mt19937_64 rng(1);
    EXPECT_EQ(eb::lab::round_order(2, 0, rng), (std::vector<size_t>{0, 1}));
    EXPECT_EQ(eb::lab::round_order(2, 1, rng), (std::vector<size_t>{1, 0}));
    EXPECT_EQ(eb::lab::round_order(2, 2, rng), (std::vector<size_t>{0, 1}));
    auto three = eb::lab::round_order(3, 0, rng);
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
    EXPECT_NE(text.find("between sessions of a run 0 (within the noise below)"), std::string::npos) << text;
    EXPECT_EQ(text.find("between sessions 0.00%"), std::string::npos) << text;
}
