// The rank test of one run a side against a calibration's own run
// differences (stats/reference_test.h): its p-values, its interval and the
// calibration runs it needs, worked by hand on small cases.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "stats/reference_test.h"

namespace {

using namespace eb::stats;

TEST(ReferenceTest, FiveRunsCannotGiveLessThanOneEleventh) {
    auto r = make_reference({0, 1, 2, 3, 4}, 1, 1);
    EXPECT_EQ(r.abs_desc.size(), 10u);  // 5 choose 2
    EXPECT_EQ(r.diffs.size(), 20u);     // both orientations
    EXPECT_DOUBLE_EQ(min_p(r), 1.0 / 11);
    EXPECT_DOUBLE_EQ(reference_p(r, 100, 0.05), 1.0 / 11);
    EXPECT_EQ(runs_needed(0.05, 1, 1), 7u);        // 21 pairs: 1/22 < 0.05; 6 runs: 1/16
    EXPECT_EQ(runs_needed(0.05 / 39, 1, 1), 40u);  // 780 pairs: 1/781 < 0.05/39
    EXPECT_TRUE(std::isinf(reference_ci(r, 0.5, 0.05).hi));
    EXPECT_TRUE(std::isinf(reference_detectable(r, 0.05)));
}

TEST(ReferenceTest, PValuesCountTheDifferencesAtLeastAsLargeReadWider) {
    // |differences| of {0, 1, 2, 3, 4}: 1 x4, 2 x3, 3 x2, 4 x1; read wider by t(4)/z at 0.05 = 1.41.
    auto r = make_reference({0, 1, 2, 3, 4}, 1, 1);
    double f = finite_factor(5, 0.05);
    EXPECT_NEAR(f, 2.776445 / 1.959964, 1e-5);
    EXPECT_DOUBLE_EQ(reference_p(r, 3 * f, 0.05), (1 + 3) / 11.0);   // 3, 3, 4
    EXPECT_DOUBLE_EQ(reference_p(r, -3 * f, 0.05), (1 + 3) / 11.0);
    EXPECT_DOUBLE_EQ(reference_p(r, 0, 0.05), 1);
    // One-sided over the 20 ordered differences: +3 twice and +4 once.
    EXPECT_DOUBLE_EQ(reference_p_upper(r, 3 * f, 0, 0.025), (1 + 3) / 21.0);
    EXPECT_DOUBLE_EQ(reference_p_upper(r, 3 * f + 1, 1, 0.025), (1 + 3) / 21.0);
    // The factor shrinks towards 1 as the calibration grows.
    EXPECT_LT(finite_factor(40, 0.05), 1.04);
}

// The interval holds exactly the shifts the test does not reject.
TEST(ReferenceTest, TheIntervalInvertsTheTest) {
    std::mt19937_64 rng(3);
    std::normal_distribution<double> z(0, 1);
    std::vector<double> runs;
    for (int k = 0; k < 15; ++k) runs.push_back(0.01 * z(rng));
    auto r = make_reference(runs, 1, 1);
    for (double obs : {0.0, 0.004, -0.02, 0.05}) {
        auto ci = reference_ci(r, obs, 0.05);
        for (double d = -0.08; d <= 0.08; d += 0.0005) {
            bool inside = ci.lo <= d && d <= ci.hi;
            EXPECT_EQ(inside, reference_p(r, obs - d, 0.05) >= 0.05) << obs << " " << d;
        }
    }
}

TEST(ReferenceTest, UnequalSidesRankMeansOfDisjointSets) {
    auto r = make_reference({0, 1, 2, 3}, 1, 2);
    EXPECT_EQ(r.diffs.size(), 12u);  // 4 ways to pick A, 3 to pick B's pair
    EXPECT_DOUBLE_EQ(reference_size(4, 1, 2), 12);
    EXPECT_THROW(make_reference({0, 1}, 1, 2), std::invalid_argument);
}

} // namespace
