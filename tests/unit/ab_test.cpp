// Unit-level A/B statistics against values worked out independently
// (numerical integration of the t density).
#include <gtest/gtest.h>

#include <cmath>

#include "stats/ab.h"

namespace {

using namespace eb::stats;

TEST(Welch, MatchesAHandWorkedExample) {
    std::vector<double> a{1, 2, 3, 4, 5}, b{2, 4, 6, 8, 10};
    auto t = welch(a, b);
    EXPECT_DOUBLE_EQ(t.estimate, 3);
    EXPECT_NEAR(t.se, std::sqrt(2.5), 1e-12);
    EXPECT_NEAR(t.df, 5.882352941, 1e-8);
    EXPECT_NEAR(t.p, 0.107531, 2e-5);
    EXPECT_LT(t.ci.lo, 0);
    EXPECT_NEAR((t.ci.lo + t.ci.hi) / 2, 3, 1e-12);
}

TEST(OneSampleT, MatchesAHandWorkedExample) {
    std::vector<double> d{0.1, 0.3, -0.1, 0.4, 0.2};
    auto t = one_sample_t(d);
    EXPECT_NEAR(t.estimate, 0.18, 1e-12);
    EXPECT_NEAR(t.se, 0.0860232527, 1e-9);
    EXPECT_DOUBLE_EQ(t.df, 4);
    EXPECT_NEAR(t.p, 0.104540, 2e-5);
    // 95% t quantile on 4 df is 2.776445.
    EXPECT_NEAR(t.ci.hi - t.estimate, 2.776445 * t.se, 1e-5);
}

TEST(OneSampleT, IdenticalUnitsGiveAnExactAnswer) {
    std::vector<double> same{0.5, 0.5, 0.5};
    auto t = one_sample_t(same);
    EXPECT_EQ(t.p, 0);
    EXPECT_EQ(t.ci.lo, 0.5);
    std::vector<double> zero{0, 0};
    EXPECT_EQ(one_sample_t(zero).p, 1);
}

TEST(Welch, NeedsTwoUnitsASide) {
    std::vector<double> one{1}, two{1, 2};
    EXPECT_THROW(welch(one, two), std::invalid_argument);
    EXPECT_THROW(one_sample_t(one), std::invalid_argument);
}

TEST(Detectable, IsNearTheNormalTheoryFigureAndAboveIt) {
    TTest t;
    t.se = 0.01;
    t.df = 10;
    // t_{0.975,10} = 2.228139, t_{0.8,10} = 0.879058; the se is scaled by
    // sqrt(10 / chi2_{10,0.5} = 9.341818) = 1.034617.
    double normal_theory = (2.228139 + 0.879058) * 0.01 * 1.034617;
    double d = detectable_difference(t);
    EXPECT_GT(d, normal_theory * 0.99);
    EXPECT_LT(d, normal_theory * 1.05);
    t.df = 1000;
    EXPECT_NEAR(detectable_difference(t), (1.959964 + 0.841621) * 0.01, 1e-4);
    t.df = 0;
    EXPECT_TRUE(std::isinf(detectable_difference(t)));
}

TEST(VarianceComponents, SeparatesTheLevels) {
    // Three groups with no spread inside: everything is between groups.
    auto c = variance_components({{1, 1, 1}, {2, 2, 2}, {3, 3, 3}});
    EXPECT_DOUBLE_EQ(c.within_sd, 0);
    EXPECT_DOUBLE_EQ(c.between_sd, 1);
    // Same group means, spread inside only: between is floored at 0.
    c = variance_components({{0, 2}, {0, 2}, {0, 2}});
    EXPECT_NEAR(c.within_sd, std::sqrt(2.0), 1e-12);
    EXPECT_DOUBLE_EQ(c.between_sd, 0);
    // One group: no between level to speak of.
    EXPECT_TRUE(std::isnan(variance_components({{1, 2, 3}}).between_sd));
}

} // namespace
