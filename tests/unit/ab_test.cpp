// Unit-level A/B statistics against values worked out independently
// (numerical integration of the t density).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "stats/ab.h"
#include "stats/family.h"
#include "stats/nested.h"

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

// Unequal group sizes: a mean of n values carries within^2 / n, so the share
// taken out is within^2 times the mean of 1/n (here 0.375), not 1 / mean n.
TEST(VarianceComponents, UnequalGroupSizesUseTheMeanOfOneOverN) {
    auto c = variance_components({{0, 2}, {5, 5, 7, 7}});
    EXPECT_NEAR(c.within_sd, std::sqrt(1.5), 1e-12);
    EXPECT_NEAR(c.between_sd, std::sqrt(12.5 - 1.5 * 0.375), 1e-12);
    auto sd = nested_sd({{}, {{{0, 2}, {}}, {{5, 5, 7, 7}, {}}}});
    ASSERT_EQ(sd.size(), 2u);
    EXPECT_NEAR(sd[0], std::sqrt(1.5), 1e-12);
    EXPECT_NEAR(sd[1], std::sqrt(12.5 - 1.5 * 0.375), 1e-12);
}

// Repeats within sessions within runs within boots, unequal sizes at every
// level: the mean of each level's variance estimate lands on the true one.
TEST(NestedSd, EachLevelIsEstimatedOnceAndWithoutBias) {
    std::mt19937_64 rng(11);
    std::normal_distribution<double> z(0, 1);
    const double truth[4] = {1.0, 0.8, 1.2, 1.5};
    double sum[4] = {0, 0, 0, 0};
    const int trials = 600;
    for (int i = 0; i < trials; ++i) {
        Nest root;
        for (int b = 0; b < 6; ++b) {
            Nest boot;
            double bo = truth[3] * z(rng);
            for (int r = 0; r < 2 + b % 3; ++r) {
                Nest run;
                double ro = bo + truth[2] * z(rng);
                for (int s = 0; s < 2 + (r + b) % 2; ++s) {
                    Nest ses;
                    double so = ro + truth[1] * z(rng);
                    for (int k = 0; k < 2 + (s + r) % 5; ++k) ses.values.push_back(so + truth[0] * z(rng));
                    run.children.push_back(ses);
                }
                boot.children.push_back(run);
            }
            root.children.push_back(boot);
        }
        auto sd = nested_sd(root);
        ASSERT_EQ(sd.size(), 4u);
        for (int l = 0; l < 4; ++l) sum[l] += sd[l] * sd[l];
    }
    // Tolerances: about 3 Monte Carlo SE of each mean (the floor at 0 rarely binds at these sizes).
    const double tol[4] = {0.02, 0.08, 0.15, 0.35};
    for (int l = 0; l < 4; ++l) EXPECT_NEAR(sum[l] / trials, truth[l] * truth[l], tol[l] * truth[l] * truth[l] + 0.02) << "level " << l;
}

// One session per run: the session level cannot be told from the run level.
TEST(NestedSd, AnUnreplicatedLevelIsNaNAndTheLevelAboveHoldsIt) {
    Nest root;
    for (double m : {0.0, 1.0, 2.0}) root.children.push_back({{}, {{{m - 0.1, m + 0.1}, {}}}});
    auto sd = nested_sd(root);
    ASSERT_EQ(sd.size(), 3u);
    EXPECT_TRUE(std::isnan(sd[1]));
    EXPECT_NEAR(sd[2], std::sqrt(1 - 0.02 / 2), 1e-12);
}

TEST(Family, HolmAndBenjaminiHochbergMatchTheirDefinitions) {
    std::vector<double> p{0.01, 0.04, 0.03, 0.005, std::nan("")};
    auto h = holm_adjust(p), q = bh_adjust(p);
    std::vector<double> want_h{0.03, 0.06, 0.06, 0.02}, want_q{0.02, 0.04, 0.04, 0.02};
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_NEAR(h[i], want_h[i], 1e-15) << i;
        EXPECT_NEAR(q[i], want_q[i], 1e-15) << i;
    }
    EXPECT_TRUE(std::isnan(h[4]));
    EXPECT_TRUE(std::isnan(q[4]));
    EXPECT_EQ(holm_adjust(std::vector<double>{0.6, 0.7}), (std::vector<double>{1, 1}));
}

TEST(TUpper, IsTheOneSidedTail) {
    EXPECT_NEAR(t_upper(0, 5), 0.5, 1e-15);
    EXPECT_NEAR(t_upper(2.015048, 5), 0.05, 1e-6);
    EXPECT_NEAR(t_upper(-2.015048, 5), 0.95, 1e-6);
}

} // namespace
