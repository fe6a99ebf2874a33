// The A/B verdicts against simulated experiments whose noise has the
// structure of real runs: repeat noise inside a session (sigma_w), a lognormal
// offset per session (a fresh VM lands differently), and drift between
// sessions, runs or rounds (sigma_b), shared by both configurations within a
// round. A compare that pooled repeats would call most of these "significant":
// the false-positive checks below fail for it (PooledRepeatsWouldFail shows so).
#include <gtest/gtest.h>

#include <cmath>
#include <fmt/format.h>
#include <random>

#include "stats/inference.h"
#include "stats/summary.h"
#include "suite/compare.h"

namespace {

using namespace eb::suite;

constexpr int kTrials = 4000;  // the false-positive rate's standard error is then 0.34%
constexpr double kSigmaW = 0.005;        // 0.5% per repeat, as measured for cpuid here
constexpr double kSessionOffset = 0.01;  // 2 x sigma_w: each fresh VM lands a little differently

enum class Design { Sessions4x4, Runs3x3of2, Rounds8 };

struct Cell {
    Design design;
    double drift;  // sigma_b in units of sigma_w
};

const char* design_name(Design d) {
    switch (d) {
    case Design::Sessions4x4: return "saved, 4+4 single-session runs";
    case Design::Runs3x3of2: return "saved, 3+3 runs of 2 sessions";
    case Design::Rounds8: break;
    }
    return "interleaved, 8 rounds";
}

struct Sim {
    std::mt19937_64 rng;
    std::normal_distribution<double> n01{0, 1};
    double z() { return n01(rng); }

    SessionSamples session(double log_level, int repeats) {
        SessionSamples s{{}, 1024};
        double offset = kSessionOffset * z();
        for (int i = 0; i < repeats; ++i) s.samples.push_back(1000 * std::exp(log_level + offset + kSigmaW * z()));
        return s;
    }
    static RunReport report(std::vector<SessionSamples> sessions) {
        RunReport r;
        r.results.push_back(TestResult{.name = "cpuid", .status = Status::Ok, .sessions = std::move(sessions)});
        return r;
    }
    // One experiment; `shift` is log(B / A).
    Effect trial(const Cell& c, double shift) {
        double sb = c.drift * kSigmaW;
        std::vector<std::vector<RunReport>> sides(2);
        if (c.design == Design::Rounds8) {
            for (int r = 0; r < 8; ++r) {
                double drift = sb * z();  // shared by both configurations of the round
                for (int k = 0; k < 2; ++k) sides[k].push_back(report({session(drift + k * shift, 3)}));
            }
            return compare_rounds({"A", "B"}, sides).tests[0].vs_first[0];
        }
        bool runs = c.design == Design::Runs3x3of2;
        for (int k = 0; k < 2; ++k)
            for (int f = 0; f < (runs ? 3 : 4); ++f) {
                double drift = sb * z();  // per run: a boot, a time of day
                std::vector<SessionSamples> ss;
                for (int s = 0; s < (runs ? 2 : 1); ++s) ss.push_back(session(drift + k * shift, 10));
                sides[k].push_back(report(std::move(ss)));
            }
        return compare_saved({"A", "B"}, sides).tests[0].vs_first[0];
    }
};

struct Rates {
    double positives = 0, covered = 0, median_detectable = 0;
};

Rates measure(const Cell& c, double shift, uint64_t seed) {
    Sim sim{std::mt19937_64(seed)};
    Rates r;
    std::vector<double> mde;
    for (int i = 0; i < kTrials; ++i) {
        auto e = sim.trial(c, shift);
        EXPECT_NE(e.verdict, Verdict::NotTestable) << e.why;
        r.positives += e.verdict == Verdict::Faster || e.verdict == Verdict::Slower;
        r.covered += e.ratio_ci.lo <= std::exp(shift) && std::exp(shift) <= e.ratio_ci.hi;
        mde.push_back(e.detectable);
    }
    r.positives /= kTrials;
    r.covered /= kTrials;
    r.median_detectable = eb::stats::median(mde);
    return r;
}

class Simulated : public ::testing::TestWithParam<Cell> {
public:
    static void SetUpTestSuite() {
        fmt::print("| {:<31} | drift | false+  | detectable | power  | cover0 | cover1 |\n", "design");
    }
};

// False positives, power at the printed detectable difference, and coverage.
TEST_P(Simulated, FalsePositivesPowerAndCoverage) {
    const Cell c = GetParam();
    uint64_t seed = 1000 * int(c.design) + uint64_t(c.drift * 10);
    Rates null = measure(c, 0, seed);
    // The difference the tool prints as detectable, then made true.
    double shift = std::log1p(null.median_detectable);
    Rates alt = measure(c, shift, seed + 1);
    fmt::print("| {:<31} | {:>4.0f}x | {:>6.2f}% | {:>8.2f}% | {:>6.1f}% | {:>6.1f}% | {:>6.1f}% |\n",
               design_name(c.design), c.drift, null.positives * 100, null.median_detectable * 100,
               alt.positives * 100, null.covered * 100, alt.covered * 100);
    EXPECT_LE(null.positives, 0.06);
    EXPECT_GE(alt.positives, 0.75);
    EXPECT_GE(null.covered, 0.93);
    EXPECT_LE(null.covered, 0.97);
    EXPECT_GE(alt.covered, 0.93);
    EXPECT_LE(alt.covered, 0.97);
}

INSTANTIATE_TEST_SUITE_P(Cells, Simulated,
                         ::testing::Values(Cell{Design::Sessions4x4, 0}, Cell{Design::Sessions4x4, 1},
                                           Cell{Design::Sessions4x4, 5}, Cell{Design::Runs3x3of2, 0},
                                           Cell{Design::Runs3x3of2, 1}, Cell{Design::Runs3x3of2, 5},
                                           Cell{Design::Rounds8, 0}, Cell{Design::Rounds8, 1},
                                           Cell{Design::Rounds8, 5}));

// The simulation has teeth: pooling every repeat of a side and testing them as
// independent (what compare did before) fails the false-positive bound.
TEST(Simulated, PooledRepeatsWouldFail) {
    Sim sim{std::mt19937_64(7)};
    int positives = 0;
    for (int i = 0; i < kTrials; ++i) {
        std::vector<double> a, b;
        for (int s = 0; s < 4; ++s) {
            for (double x : sim.session(0, 10).samples) a.push_back(x);
            for (double x : sim.session(0, 10).samples) b.push_back(x);
        }
        positives += eb::stats::compare(a, b).verdict != eb::stats::Verdict::NoDifference;
    }
    EXPECT_GT(double(positives) / kTrials, 0.15);
}

// One session a side: an observed shift, but no verdict and no p-value.
TEST(Simulated, OneSessionPerSideIsNotTestable) {
    Sim sim{std::mt19937_64(3)};
    std::vector<std::vector<RunReport>> sides{{Sim::report({sim.session(0, 10)})},
                                              {Sim::report({sim.session(0.05, 10)})}};
    auto e = compare_saved({"A", "B"}, sides).tests[0].vs_first[0];
    EXPECT_EQ(e.verdict, Verdict::NotTestable);
    EXPECT_TRUE(std::isnan(e.p));
    EXPECT_NEAR(e.ratio, std::exp(0.05), 0.03);
    EXPECT_NE(e.why.find("one session per side"), std::string::npos);
    EXPECT_TRUE(std::isinf(e.detectable));
}

} // namespace
