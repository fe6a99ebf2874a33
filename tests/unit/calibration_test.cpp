// The calibration: level estimates with their df (stats/calibration.h), the
// Kalibera-Jones allocation and the rounds plan; a calibration from runs, its
// round trip through the history, and which one plans a compare (never tests it).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <random>
#include <sqlite3.h>

#include "history/store.h"
#include "lab/calibration_lookup.h"
#include "report/compare.h"
#include "stats/calibration.h"
#include "suite/calibration.h"
#include "suite/compare.h"
#include "tests/temp_dir.h"

namespace {

using namespace eb;
using stats::Component;
using stats::LevelTable;

// runs[k][s] = log repeats: run offset ~ N(0, run), session ~ N(0, ses), repeat ~ N(0, rep).
std::vector<std::vector<std::vector<double>>> nest(std::mt19937_64& rng, size_t k, size_t s, size_t r, double run,
                                                   double ses, double rep) {
    std::normal_distribution<double> z(0, 1);
    std::vector<std::vector<std::vector<double>>> out(k);
    for (auto& rn : out) {
        double a = run * z(rng);
        for (size_t j = 0; j < s; ++j) {
            double b = a + ses * z(rng);
            auto& v = rn.emplace_back();
            for (size_t i = 0; i < r; ++i) v.push_back(7 + b + rep * z(rng));
        }
    }
    return out;
}

TEST(CalibrationLevels, RecoversKnownComponentsWithTheirDf) {
    std::mt19937_64 rng(1);
    auto t = stats::estimate_levels(nest(rng, 400, 4, 9, 0.02, 0.01, 0.005));
    EXPECT_EQ(t.runs, 400u);
    EXPECT_EQ(t.sessions, 1600u);
    EXPECT_EQ(t.run_mean.df, 399);
    EXPECT_EQ(t.session_median.df, 1200);
    EXPECT_NEAR(std::sqrt(t.run.var), 0.02, 0.002);
    EXPECT_NEAR(std::sqrt(t.session.var), 0.01, 0.001);
    EXPECT_NEAR(std::sqrt(t.repeat.var), 0.005, 0.0007);  // MAD of 9 values: a few % biased
    EXPECT_GT(t.run.df, 100);
    EXPECT_LE(t.run.df, 399);
    EXPECT_DOUBLE_EQ(t.inv_sessions, 0.25);
}

TEST(CalibrationLevels, ALoneHighRepeatDoesNotMoveTheRepeatLevel) {
    std::mt19937_64 rng(2);
    auto runs = nest(rng, 20, 3, 5, 0.01, 0.01, 0.005);
    auto before = stats::estimate_levels(runs);
    runs[3][1][2] += std::log(1.55);
    auto after = stats::estimate_levels(runs);
    EXPECT_NEAR(std::sqrt(after.repeat.var), std::sqrt(before.repeat.var), 0.0005);
    EXPECT_NEAR(after.run_mean.var, before.run_mean.var, 1e-12);  // the session's median did not move either
}

TEST(CalibrationLevels, NeedsTwoRuns) {
    std::mt19937_64 rng(3);
    EXPECT_THROW(stats::estimate_levels(nest(rng, 1, 3, 4, 0.01, 0.01, 0.01)), std::invalid_argument);
}

LevelTable table(double run_mean, double run_df, double ses_med, double ses_df, double inv) {
    LevelTable t;
    t.run_mean = {run_mean, run_df};
    t.session_median = {ses_med, ses_df};
    t.inv_sessions = inv;
    t.run = {std::max(0.0, run_mean - ses_med * inv), run_df};
    return t;
}

// The rounds a plan names: the fewest whose paired t reaches the target, on
// two sessions' spread about their run (the round's offset cancels).
TEST(PlanRounds, TheFewestRoundsThatReachTheTarget) {
    auto cal = table(4e-4, 10, 1e-4, 20, 1.0 / 3);
    auto r = stats::plan_rounds(cal, 0.02);
    ASSERT_GT(r.rounds, 1u);
    EXPECT_LE(r.detectable, 0.02);
    stats::TTest fewer;
    fewer.se = std::sqrt(2e-4 / double(r.rounds - 1));
    fewer.df = double(r.rounds - 2);
    EXPECT_GT(std::exp(stats::detectable_difference(fewer, 0.05)) - 1, 0.02) << "one round less does not reach it";
    EXPECT_EQ(stats::plan_rounds(cal, 1e-5).rounds, 0u) << "beyond 1000 rounds";
}

LevelTable levels(double run, double ses, double rep) {
    LevelTable t;
    t.run = {run, 10};
    t.session = {ses, 10};
    t.repeat = {rep, 10};
    return t;
}

// The within-run counts are KJ's sqrt(c_above var_below / (c_below var_above)),
// rounded; runs are the fewest that reach the target.
TEST(Allocation, KaliberaJonesCountsAndTheFewestRuns) {
    // No repeat noise: one repeat. Sessions: sqrt(4 * 1e-4 / (1 * 1e-4)) = 2.
    auto a = stats::allocate(levels(1e-4, 1e-4, 0), {4, 1, 0.01}, 0.02);
    ASSERT_TRUE(a.reachable);
    EXPECT_EQ(a.repeats, 1u);
    EXPECT_EQ(a.sessions, 2u);
    EXPECT_LE(a.detectable, 0.02);
    stats::TTest fewer;
    fewer.se = std::sqrt(2 * stats::design_variance(levels(1e-4, 1e-4, 0), double(a.runs - 1), 2, 1));
    fewer.df = double(a.runs - 2);
    EXPECT_GT(std::exp(stats::detectable_difference(fewer)) - 1, 0.02) << "one run fewer must miss the target";
    EXPECT_NEAR(a.cost_s, double(a.runs) * (4 + 2 * (1 + 0.01)), 1e-9);
}

TEST(Allocation, CheapRunsAndCostlySessionsMeanMoreRunsFewerSessions) {
    auto costly_runs = stats::allocate(levels(1e-4, 4e-4, 1e-4), {10, 0.5, 0.02}, 0.02);
    auto cheap_runs = stats::allocate(levels(1e-4, 4e-4, 1e-4), {0.5, 10, 0.02}, 0.02);
    EXPECT_GT(costly_runs.sessions, cheap_runs.sessions);
    EXPECT_LT(costly_runs.runs, cheap_runs.runs);
}

TEST(Allocation, AnUnreachableTargetSaysSo) {
    auto a = stats::allocate(levels(1e-2, 0, 0), {1, 1, 1}, 1e-5);
    EXPECT_FALSE(a.reachable);
    EXPECT_GT(a.detectable, 1e-5);
    EXPECT_THROW(stats::allocate(levels(1e-2, 0, 0), {1, 1, 1}, 0), std::invalid_argument);
}

// --- a calibration from runs, and compare with it -----------------------

suite::RunReport run_of(std::mt19937_64& rng, double level, const std::string& host = "hostA",
                        const std::string& kernel = "6.1.0") {
    std::normal_distribution<double> z(0, 1);
    suite::RunReport r;
    r.provenance.hostname = host;
    r.provenance.boot_id = "boot-1";
    r.provenance.timestamp_utc = "2026-12-01T08:00:00Z";
    r.host.kernel_release = kernel;
    r.host.cpu_model = "Test CPU";
    r.host.backend = vmm::Backend::Svm;
    r.host.tsc_mhz = 1000;
    r.settings.sessions = 3;
    r.settings.repeats = 4;
    for (const char* name : {"cpuid", "vmcall"}) {
        suite::TestResult t{.name = name, .status = suite::Status::Ok};
        double run = 0.01 * z(rng);
        for (int s = 0; s < 3; ++s) {
            double ses = run + 0.005 * z(rng);
            std::vector<double> v;
            for (int i = 0; i < 4; ++i) v.push_back(1000 * std::exp(level + ses + 0.002 * z(rng)));
            t.sessions.push_back({v, 1000});
        }
        t.wall_seconds = 0.5;
        r.results.push_back(t);
    }
    return r;
}

TEST(Calibration, FromRunsKeepsEveryTestItsLevelsAndItsCosts) {
    std::mt19937_64 rng(4);
    std::vector<suite::RunReport> runs;
    for (int k = 0; k < 5; ++k) runs.push_back(run_of(rng, 0));
    runs[2].results[1].status = suite::Status::Hung;  // vmcall keeps 4 usable runs
    auto c = suite::calibrate_from(runs, {2, 2, 2, 2, 2});
    ASSERT_EQ(c.tests.size(), 2u);
    EXPECT_EQ(c.tests[0].levels.runs, 5u);
    EXPECT_EQ(c.identity.hostname, "hostA");
    EXPECT_EQ(c.identity.backend, "svm");
    // A repeat: 1000 cycles per iteration x 1000 iterations at 1000 MHz = 1 ms.
    EXPECT_NEAR(c.tests[0].costs.repeat, 1e-3, 5e-5);
    EXPECT_NEAR(c.tests[0].costs.session, (0.5 - 12 * c.tests[0].costs.repeat) / 3, 1e-9);
    EXPECT_NEAR(c.tests[0].costs.run, 1.0, 1e-9);  // 2 s less the two tests' 0.5 s each
    EXPECT_EQ(c.tests[0].session_logs.size(), 5u);
}

TEST(Calibration, MismatchesNameWhatDiffers) {
    std::mt19937_64 rng(5);
    auto a = suite::identity_of(run_of(rng, 0));
    auto b = a;
    EXPECT_TRUE(suite::mismatches(a, b).empty());
    b.kernel_release = "6.2.0";
    b.settings = "batch=64";
    auto d = suite::mismatches(a, b);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0], "kernel.release: '6.1.0' (calibration) vs '6.2.0'");
    EXPECT_NE(d[1].find("settings:"), std::string::npos);
}

TEST(Calibration, SettingsKeyLeavesOutSessionsAndRepeatsOnly) {
    suite::RunSettings s;
    auto key = suite::settings_key(s);
    s.sessions = 7;
    s.repeats = 9;
    s.order_seed = 3;
    EXPECT_EQ(suite::settings_key(s), key);
    s.iterations = 1000;
    EXPECT_NE(suite::settings_key(s), key);
}


// One run a side is not testable with a calibration or without: the
// calibration plans instead, and says which it is (host, kernel, settings,
// age) and what its counts would detect, in the text and the JSON.
TEST(Calibration, OneRunASideIsNotTestableAndTheCalibrationPlansTheRuns) {
    std::mt19937_64 rng(6);
    std::vector<suite::RunReport> runs;
    for (int k = 0; k < 12; ++k) runs.push_back(run_of(rng, 0));
    auto lent = suite::lend(suite::calibrate_from(runs, {}));
    for (auto& [_, s] : lent) s.age_s = 7200, s.same_boot = true;
    auto a = run_of(rng, 0), b = run_of(rng, std::log(1.5));
    auto without = suite::compare_saved({"A", "B"}, {{a}, {b}});
    auto with = suite::compare_saved({"A", "B"}, {{a}, {b}}, 0.05, lent, 0.02);
    for (const auto* c : {&without, &with})
        for (const auto& t : c->tests) {
            EXPECT_EQ(t.vs_first[0].verdict, suite::Verdict::NotTestable) << t.test;
            EXPECT_NE(t.vs_first[0].why.find("not testable at the run level (1 vs 1 run)"), std::string::npos);
        }
    EXPECT_TRUE(without.plans.empty());
    std::string said = fmt::format("{}", fmt::join(without.advice, "\n"));
    EXPECT_NE(said.find("exitbench calibrate cpuid vmcall --sessions 3 -r 4"), std::string::npos) << said;
    EXPECT_NE(said.find("--a 'OPTIONS' --b 'OPTIONS' --rounds 8"), std::string::npos) << said;
    ASSERT_EQ(with.plans.size(), 2u);
    const auto& p = with.plans[0];
    EXPECT_EQ(p.test, "cpuid");
    EXPECT_DOUBLE_EQ(p.level, 0.025) << "the family's first Holm level";
    EXPECT_GE(p.runs.runs, 2u);
    EXPECT_TRUE(p.runs.reachable);
    EXPECT_LE(p.runs.detectable, 0.02);
    EXPECT_GT(p.rounds, 1u);
    for (const char* part : {"host hostA, kernel 6.1.0", "settings '", "12 runs x 3 sessions x 4 repeats",
                             "2.0 h old, this boot"})
        EXPECT_NE(p.calibration.find(part), std::string::npos) << part << ": " << p.calibration;
    said = fmt::format("{}", fmt::join(with.advice, "\n"));
    EXPECT_NE(said.find(fmt::format("cpuid: for a detectable 2% at alpha 0.025 (0.05 over 2 test(s)")), std::string::npos)
        << said;
    EXPECT_NE(said.find(fmt::format("recommends {} runs x {} sessions x {} repeats a side", p.runs.runs,
                                    p.runs.sessions, p.runs.repeats)), std::string::npos) << said;
    EXPECT_NE(said.find(fmt::format("exitbench compare cpuid --a 'OPTIONS' --b 'OPTIONS' --rounds {}", p.rounds)),
              std::string::npos) << said;
    auto j = report::comparison_json(with);
    ASSERT_EQ(j["plans"].size(), 2u);
    EXPECT_EQ(j["plans"][0]["runs_a_side"], p.runs.runs);
    EXPECT_EQ(j["plans"][0]["rounds"], p.rounds);
    EXPECT_FALSE(j["tests"][0]["vs_first"][0].contains("run_to_run_spread_from"));
}

// Several runs a side are tested on their own spread: a calibration plans
// beside the verdict and changes nothing of it.
TEST(Calibration, SeveralRunsASideAreTestedOnTheirOwnSpreadWhateverTheCalibration) {
    std::mt19937_64 rng(7);
    std::vector<suite::RunReport> runs;
    for (int k = 0; k < 12; ++k) runs.push_back(run_of(rng, 0));
    auto lent = suite::lend(suite::calibrate_from(runs, {}));
    std::vector<std::vector<suite::RunReport>> sides(2);
    for (int k = 0; k < 3; ++k) sides[0].push_back(run_of(rng, 0)), sides[1].push_back(run_of(rng, std::log(1.2)));
    auto plain = suite::compare_saved({"A", "B"}, sides);
    auto with = suite::compare_saved({"A", "B"}, sides, 0.05, lent);
    const auto &e = with.tests[0].vs_first[0], &f = plain.tests[0].vs_first[0];
    EXPECT_EQ(e.verdict, suite::Verdict::Slower);
    EXPECT_EQ(e.method, "Welch t on log run means");
    EXPECT_DOUBLE_EQ(e.p, f.p);
    EXPECT_DOUBLE_EQ(e.ratio_ci.lo, f.ratio_ci.lo);
    EXPECT_EQ(with.plans.size(), 2u);
    EXPECT_TRUE(plain.plans.empty());
}

// A plan needs the same host, kernel, backend, CPU and settings; another
// boot, other sessions or another -r still plan (the plan names its own).
TEST(Calibration, OnlyTheSameHostKernelAndSettingsPlan) {
    std::mt19937_64 rng(17);
    std::vector<suite::RunReport> runs;
    for (int k = 0; k < 3; ++k) runs.push_back(run_of(rng, 0));
    auto cal = suite::calibrate_from(runs, {});
    auto r = run_of(rng, 0);
    r.provenance.boot_id = "boot-2";
    r.settings.repeats = 5;
    r.settings.sessions = 2;
    EXPECT_TRUE(suite::why_not_plan(cal, r).empty());
    r.host.kernel_release = "6.2.0";
    auto why = suite::why_not_plan(cal, r);
    ASSERT_EQ(why.size(), 1u);
    EXPECT_NE(why[0].find("kernel.release: '6.1.0' (calibration) vs '6.2.0'"), std::string::npos) << why[0];
}

TEST(CompareOutliers, AUnitFarFromTheOthersIsFlagged) {
    std::mt19937_64 rng(8);
    std::vector<suite::RunReport> side;
    for (int k = 0; k < 5; ++k) side.push_back(run_of(rng, 0));
    for (auto& s : side[3].results[0].sessions)
        for (auto& x : s.samples) x *= 1.2;
    auto c = suite::compare_saved({"A", "B"}, {side, {run_of(rng, 0), run_of(rng, 0), run_of(rng, 0)}});
    const auto& o = c.tests[0].configs[0].outliers;
    ASSERT_EQ(o.size(), 1u);
    EXPECT_NE(o[0].find("run 4: +"), std::string::npos) << o[0];
    EXPECT_TRUE(c.tests[0].configs[1].outliers.empty());
    auto j = report::comparison_json(c);
    EXPECT_EQ(j["tests"][0]["configs"][0]["outlier_units"].size(), 1u);
}

// --- the history, and which calibration compare borrows -----------------

class CalibrationStore : public eb::test::TempDirTest {};

TEST_F(CalibrationStore, RoundTripsThroughTheHistory) {
    std::mt19937_64 rng(9);
    std::vector<suite::RunReport> runs;
    for (int k = 0; k < 4; ++k) runs.push_back(run_of(rng, 0));
    auto c = suite::calibrate_from(runs, {1, 1, 1, 1});
    auto path = temp_path("h.db");
    int64_t id = history::Store(path, history::Store::Mode::ReadWrite).save_calibration(c);
    auto back = history::Store(path, history::Store::Mode::ReadOnly).calibrations("hostA");
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].id, id);
    EXPECT_TRUE(suite::mismatches(back[0].identity, c.identity).empty());
    EXPECT_EQ(back[0].boot_id, "boot-1");
    ASSERT_EQ(back[0].tests.size(), 2u);
    const auto& x = back[0].tests[1].levels;
    const auto& y = c.tests[1].levels;
    EXPECT_DOUBLE_EQ(x.run_mean.var, y.run_mean.var);
    EXPECT_DOUBLE_EQ(x.session_median.df, y.session_median.df);
    EXPECT_DOUBLE_EQ(x.run.df, y.run.df);
    EXPECT_DOUBLE_EQ(x.inv_sessions, y.inv_sessions);
    EXPECT_DOUBLE_EQ(back[0].tests[1].costs.repeat, c.tests[1].costs.repeat);
    EXPECT_EQ(back[0].tests[1].session_logs, c.tests[1].session_logs);
    EXPECT_TRUE(history::Store(path, history::Store::Mode::ReadOnly).calibrations("hostB").empty());
}

TEST_F(CalibrationStore, ComparePlansWithAMatchingCalibrationOnly) {
    std::mt19937_64 rng(10);
    std::vector<suite::RunReport> runs;
    for (int k = 0; k < 4; ++k) runs.push_back(run_of(rng, 0));
    auto path = temp_path("h.db");
    {
        history::Store st(path, history::Store::Mode::ReadWrite);
        st.save_calibration(suite::calibrate_from(runs, {}));
    }
    std::vector<std::vector<suite::RunReport>> sides{{run_of(rng, 0)}, {run_of(rng, 0)}};
    auto found = lab::find_calibrations(path, sides);
    EXPECT_EQ(found.spreads.size(), 2u);
    EXPECT_TRUE(found.warnings.empty());
    // Another kernel: named, not used.
    sides[1][0].host.kernel_release = "6.2.0";
    found = lab::find_calibrations(path, sides);
    EXPECT_TRUE(found.spreads.empty());
    ASSERT_EQ(found.warnings.size(), 1u);
    EXPECT_NE(found.warnings[0].find("kernel.release: '6.1.0' (calibration) vs '6.2.0'"), std::string::npos)
        << found.warnings[0];
    EXPECT_NE(found.warnings[0].find("cpuid, vmcall"), std::string::npos);
    EXPECT_NE(found.warnings[0].find("no plan from"), std::string::npos) << found.warnings[0];
    // Another boot still plans, and says so, with its age.
    sides[1][0].host.kernel_release = "6.1.0";
    sides[1][0].provenance.boot_id = "boot-2";
    found = lab::find_calibrations(path, sides);
    ASSERT_EQ(found.spreads.size(), 2u);
    EXPECT_FALSE(found.spreads.begin()->second.same_boot);
    EXPECT_GE(found.spreads.begin()->second.age_s, 0);
    // Several runs a side are looked up too: the plan is printed beside their verdict.
    sides[0].push_back(run_of(rng, 0));
    EXPECT_EQ(lab::find_calibrations(path, sides).spreads.size(), 2u);
}

// A version 2 store (before calibrations): compare reads it as holding none,
// with a warning; the next command that writes migrates it.
TEST_F(CalibrationStore, AVersion2StoreHoldsNoneUntilMigrated) {
    std::mt19937_64 rng(12);
    auto path = temp_path("h.db");
    history::Store(path, history::Store::Mode::ReadWrite).save(run_of(rng, 0), "", "");
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "DROP TABLE calibration_tests; DROP TABLE calibrations; PRAGMA user_version = 2",
                           nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    std::vector<std::vector<suite::RunReport>> sides{{run_of(rng, 0)}, {run_of(rng, 0)}};
    auto found = lab::find_calibrations(path, sides);
    EXPECT_TRUE(found.spreads.empty());
    ASSERT_EQ(found.warnings.size(), 1u);
    EXPECT_NE(found.warnings[0].find("needs migrating"), std::string::npos) << found.warnings[0];
    std::vector<suite::RunReport> runs{run_of(rng, 0), run_of(rng, 0)};
    history::Store(path, history::Store::Mode::ReadWrite).save_calibration(suite::calibrate_from(runs, {}));
    EXPECT_EQ(lab::find_calibrations(path, sides).spreads.size(), 2u);
}

TEST_F(CalibrationStore, NoStoreMeansNoCalibrationNotAnError) {
    std::mt19937_64 rng(11);
    std::vector<std::vector<suite::RunReport>> sides{{run_of(rng, 0)}, {run_of(rng, 0)}};
    auto found = lab::find_calibrations(temp_path("absent.db"), sides);
    EXPECT_TRUE(found.spreads.empty());
    EXPECT_TRUE(found.warnings.empty());
    // Several runs a side need none: the store is not even looked at.
    std::vector<std::vector<suite::RunReport>> many{{run_of(rng, 0), run_of(rng, 0)}, {run_of(rng, 0), run_of(rng, 0)}};
    EXPECT_TRUE(lab::find_calibrations("/nonexistent/dir/x.db", many).warnings.empty());
}

// Issue 40, rows 4 and 5: a calibration row is checked on every read. A
// damaged newer one is named in one line and skipped, so an older good one
// still serves; a timestamp in the future or unreadable is refused, saying why.
void edit_store(const std::string& path, const char* sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
}

TEST_F(CalibrationStore, ADamagedNewerRowIsNamedAndAnOlderGoodOneUsed) {
    std::mt19937_64 rng(13);
    std::vector<suite::RunReport> runs;
    for (int k = 0; k < 4; ++k) runs.push_back(run_of(rng, 0));
    auto path = temp_path("h.db");
    std::vector<std::vector<suite::RunReport>> sides{{run_of(rng, 0)}, {run_of(rng, 0)}};
    for (const char* damage : {"run_mean_var = -0.5", "run_mean_df = 0", "run_mean_df = -3", "session_var = -1e-9",
                               "repeat_df = -1", "inv_sessions = 0", "run_cost_s = -1"}) {
        std::filesystem::remove(path);
        {
            history::Store st(path, history::Store::Mode::ReadWrite);
            st.save_calibration(suite::calibrate_from(runs, {1, 1, 1, 1}));  // id 1: good
            st.save_calibration(suite::calibrate_from(runs, {1, 1, 1, 1}));  // id 2: damaged below
        }
        edit_store(path, (std::string("UPDATE calibration_tests SET ") + damage + " WHERE calibration_id = 2").c_str());
        auto found = lab::find_calibrations(path, sides);
        ASSERT_EQ(found.spreads.size(), 2u) << damage;
        for (const auto& [test, spread] : found.spreads) EXPECT_EQ(spread.id, 1) << damage << " " << test;
        ASSERT_EQ(found.warnings.size(), 2u) << damage;  // one line per damaged row: two tests
        for (const auto& w : found.warnings) {
            EXPECT_EQ(w.find('\n'), std::string::npos) << w;
            EXPECT_NE(w.find("calibration 2 ("), std::string::npos) << w;
            EXPECT_NE(w.find("an unusable row"), std::string::npos) << w;
        }
        // A plan from the damaged row would be nonsense (a negative variance): the good one's is finite.
        auto plan = stats::allocate(found.spreads.begin()->second.levels, found.spreads.begin()->second.costs, 0.05);
        EXPECT_TRUE(std::isfinite(plan.detectable)) << damage;
    }
}

TEST_F(CalibrationStore, AnInfiniteOrNaNVarianceIsRefused) {
    std::mt19937_64 rng(14);
    std::vector<suite::RunReport> runs;
    for (int k = 0; k < 4; ++k) runs.push_back(run_of(rng, 0));
    auto path = temp_path("h.db");
    history::Store(path, history::Store::Mode::ReadWrite).save_calibration(suite::calibrate_from(runs, {}));
    // SQLite stores no NaN (it becomes NULL, which the schema refuses), but 9e999 reads back as infinity.
    edit_store(path, "UPDATE calibration_tests SET run_mean_var = 9e999 WHERE test = 'cpuid'");
    std::vector<std::vector<suite::RunReport>> sides{{run_of(rng, 0)}, {run_of(rng, 0)}};
    auto found = lab::find_calibrations(path, sides);
    suite::TestCalibration t;
    t.levels.run_mean = {std::nan(""), 3};
    EXPECT_NE(suite::invalid_reason(t).find("run_mean variance is nan"), std::string::npos) << suite::invalid_reason(t);
    EXPECT_EQ(found.spreads.count("cpuid"), 0u);
    EXPECT_EQ(found.spreads.count("vmcall"), 1u);
}

TEST_F(CalibrationStore, AFutureOrUnreadableTimestampIsRefusedWithAReason) {
    std::mt19937_64 rng(15);
    std::vector<suite::RunReport> runs;
    for (int k = 0; k < 4; ++k) runs.push_back(run_of(rng, 0));
    std::vector<std::vector<suite::RunReport>> sides{{run_of(rng, 0)}, {run_of(rng, 0)}};
    for (auto [stamp, why] : std::vector<std::pair<const char*, const char*>>{
             {"2999-01-01T00:00:00Z", "is in the future"}, {"yesterday", "is not a UTC time"},
             {"2026-13-01T00:00:00Z", "is not a UTC time"}, {"2026-02-30T00:00:00Z", "is not a UTC time"},
             {"2026-12-01T08:00:00Zjunk", "is not a UTC time"}, {"", "is not a UTC time"}}) {
        auto path = temp_path("h.db");
        std::filesystem::remove(path);
        history::Store(path, history::Store::Mode::ReadWrite).save_calibration(suite::calibrate_from(runs, {}));
        edit_store(path, (std::string("UPDATE calibrations SET timestamp_utc = '") + stamp + "'").c_str());
        auto found = lab::find_calibrations(path, sides);
        EXPECT_TRUE(found.spreads.empty()) << stamp;
        ASSERT_EQ(found.warnings.size(), 1u) << stamp;
        EXPECT_NE(found.warnings[0].find(why), std::string::npos) << stamp << ": " << found.warnings[0];
    }
}

} // namespace
