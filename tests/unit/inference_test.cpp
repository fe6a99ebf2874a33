#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numbers>
#include <numeric>
#include <random>

#include "stats/inference.h"
#include "stats/summary.h"

using namespace eb;

namespace {

using Rng = std::mt19937_64;

std::vector<double> lognormal(Rng& rng, size_t n, double mu, double sigma, double shift = 0) {
    std::lognormal_distribution<double> d(mu, sigma);
    std::vector<double> v(n);
    for (double& x : v) x = d(rng) + shift;
    return v;
}

std::vector<double> normal(Rng& rng, size_t n, double mu, double sigma) {
    std::normal_distribution<double> d(mu, sigma);
    std::vector<double> v(n);
    for (double& x : v) x = d(rng);
    return v;
}

// Null counts of U by the textbook recursion on the largest value's origin:
// N(m, n, u) = N(m - 1, n, u - n) + N(m, n - 1, u). Independent of the
// library's Gaussian-binomial construction.
std::vector<double> u_counts(size_t m, size_t n) {
    std::vector<std::vector<std::vector<double>>> t(m + 1, std::vector<std::vector<double>>(n + 1));
    for (size_t i = 0; i <= m; ++i)
        for (size_t j = 0; j <= n; ++j) {
            t[i][j].assign(i * j + 1, 0);
            if (i == 0 || j == 0) {
                t[i][j][0] = 1;
                continue;
            }
            for (size_t u = 0; u <= i * j; ++u)
                t[i][j][u] = (u >= j ? t[i - 1][j][u - j] : 0) + (u < t[i][j - 1].size() ? t[i][j - 1][u] : 0);
        }
    return t[m][n];
}

std::vector<double> all_differences(const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> d;
    for (double x : a)
        for (double y : b) d.push_back(y - x);
    std::sort(d.begin(), d.end());
    return d;
}

// Bounds for an observed rate over `trials` Bernoulli trials of rate p: 4 standard errors.
double slack(double p, int trials) { return 4 * std::sqrt(p * (1 - p) / trials); }

} // namespace

TEST(Inference, StddevAndCv) {
    std::vector<double> xs{2, 4, 4, 4, 5, 5, 7, 9};
    EXPECT_DOUBLE_EQ(stats::stddev(xs), std::sqrt(32.0 / 7));
    EXPECT_DOUBLE_EQ(stats::cv(xs), std::sqrt(32.0 / 7) / 5);
    std::vector<double> one{3}, zero_mean{-1, 1};
    EXPECT_THROW(stats::stddev(one), std::invalid_argument);
    EXPECT_THROW(stats::cv(zero_mean), std::invalid_argument);
}

TEST(Inference, NormalQuantileAndCdf) {
    EXPECT_NEAR(stats::normal_quantile(0.975), 1.959963984540054, 1e-13);
    EXPECT_NEAR(stats::normal_quantile(0.8), 0.8416212335729143, 1e-13);
    EXPECT_NEAR(stats::normal_quantile(0.5), 0, 1e-15);
    EXPECT_NEAR(stats::normal_quantile(1e-10), -6.361340902404056, 1e-9);
    EXPECT_NEAR(stats::normal_quantile(0.01), -2.326347874040841, 1e-13);
    for (double p : {1e-8, 0.001, 0.02, 0.3, 0.7, 0.98, 0.999999})
        EXPECT_NEAR(stats::normal_cdf(stats::normal_quantile(p)), p, 1e-12 * std::max(p, 1e-3));
    EXPECT_THROW(stats::normal_quantile(0), std::invalid_argument);
    EXPECT_THROW(stats::normal_quantile(1), std::invalid_argument);
}

TEST(Inference, MedianCiPicksExactBinomialRanks) {
    std::vector<double> xs(20);
    std::iota(xs.begin(), xs.end(), 1.0);
    std::shuffle(xs.begin(), xs.end(), Rng(1));
    // n = 20: P(B <= 5) = 0.0207 <= 0.025 < P(B <= 6) = 0.0577, so ranks 6 and 15.
    auto ci = stats::median_ci(xs);
    EXPECT_EQ(ci.lo, 6);
    EXPECT_EQ(ci.hi, 15);
    EXPECT_NEAR(stats::median_ci_coverage(20), 1 - 2 * 21700.0 / 1048576, 1e-12);
    // n = 6 just reaches 95% with [min, max]; n = 5 cannot and gets [min, max] anyway.
    EXPECT_DOUBLE_EQ(stats::median_ci_coverage(6), 1 - 2.0 / 64);
    EXPECT_DOUBLE_EQ(stats::median_ci_coverage(5), 1 - 2.0 / 32);
    std::vector<double> five{3, 1, 4, 1, 5};
    auto wide = stats::median_ci(five);
    EXPECT_EQ(wide.lo, 1);
    EXPECT_EQ(wide.hi, 5);
    std::vector<double> single{7};
    EXPECT_EQ(stats::median_ci(single).lo, 7);
    EXPECT_EQ(stats::median_ci(single).hi, 7);
    // Large n stays exact (the pmf is summed in logs) and tightens around the median.
    Rng rng(2);
    auto big = lognormal(rng, 100000, 0, 1);
    auto wide_big = stats::median_ci(big);
    EXPECT_LT(wide_big.lo, 1.0 + 0.02);
    EXPECT_GT(wide_big.hi, 1.0 - 0.02);
    EXPECT_LT(wide_big.hi - wide_big.lo, 0.03);
    EXPECT_GE(stats::median_ci_coverage(100000), 0.95);
    EXPECT_LT(stats::median_ci_coverage(100000), 0.952);
}

TEST(Inference, MedianCiCoversTrueMedianOfSkewedData) {
    // Lognormal(mu, 1) has median exp(mu) and a heavy right tail. The order-
    // statistic interval is distribution-free, so the observed rate must sit
    // within sampling error of its exact binomial coverage (>= 95%).
    const int trials = 4000;
    const double mu = 3, truth = std::exp(mu);
    for (size_t n : {20, 50}) {
        Rng rng(100 + n);
        int hit = 0;
        for (int t = 0; t < trials; ++t) {
            auto ci = stats::median_ci(lognormal(rng, n, mu, 1));
            hit += ci.lo <= truth && truth <= ci.hi;
        }
        double rate = double(hit) / trials, exact = stats::median_ci_coverage(n);
        std::cout << "median_ci n=" << n << ": covered " << rate * 100 << "% (exact " << exact * 100
                  << "%, " << trials << " trials)\n";
        RecordProperty("median_ci_coverage_n" + std::to_string(n), std::to_string(rate));
        EXPECT_NEAR(rate, exact, slack(exact, trials));
        EXPECT_GE(rate, 0.93);
        EXPECT_LE(rate, 0.975);
    }
}

TEST(Inference, Outliers) {
    std::vector<double> xs{10, 11, 12, 13, 14, 15, 100, -50, 12};
    auto o = stats::outliers(xs);
    EXPECT_EQ(o.low, std::vector<size_t>{7});
    EXPECT_EQ(o.high, std::vector<size_t>{6});
    std::vector<double> flat{5, 5, 5};
    EXPECT_TRUE(stats::outliers(flat).low.empty());
    EXPECT_TRUE(stats::outliers(flat).high.empty());
}

TEST(Inference, HodgesLehmannSmallCases) {
    std::vector<double> a{1, 2, 3}, b{11, 12, 13};
    EXPECT_DOUBLE_EQ(stats::hodges_lehmann(a, b).estimate, 10);
    // 3 x 3 cannot reach 95% (P(U = 0) = 1/20): the interval is every difference.
    auto s = stats::hodges_lehmann(a, b);
    EXPECT_EQ(s.ci.lo, 8);
    EXPECT_EQ(s.ci.hi, 12);
    EXPECT_DOUBLE_EQ(stats::shift_ci_coverage(3, 3), 0.9);
    std::vector<double> one_a{5}, one_b{7};
    EXPECT_EQ(stats::hodges_lehmann(one_a, one_b).estimate, 2);
}

TEST(Inference, HodgesLehmannMatchesBruteForce) {
    // Small tied samples: estimate and bounds equal the order statistics of
    // the full difference list at the ranks an independent U distribution gives.
    Rng rng(3);
    std::uniform_int_distribution<int> size(1, 20), value(0, 6);
    for (int t = 0; t < 150; ++t) {
        size_t m = size(rng), n = size(rng);
        if (m * n > 400) continue;
        std::vector<double> a(m), b(n);
        for (double& x : a) x = value(rng);
        for (double& x : b) x = value(rng) * 0.5;
        auto d = all_differences(a, b);
        auto counts = u_counts(m, n);
        double total = std::accumulate(counts.begin(), counts.end(), 0.0), acc = 0;
        size_t k = 1;  // largest k with P(U <= k - 1) <= 0.025, at least 1
        for (size_t u = 0; u < counts.size(); ++u) {
            acc += counts[u];
            if (acc / total > 0.025) break;
            k = u + 1;
        }
        auto s = stats::hodges_lehmann(a, b);
        EXPECT_DOUBLE_EQ(s.estimate, stats::median(d)) << m << "x" << n;
        EXPECT_EQ(s.ci.lo, d[k - 1]) << m << "x" << n;
        EXPECT_EQ(s.ci.hi, d[d.size() - k]) << m << "x" << n;
    }
    // Tables: m = n = 10 has two-sided 5% critical U = 23, so ranks 24 and 77.
    auto a = lognormal(rng, 10, 0, 1), b = lognormal(rng, 10, 0, 1);
    auto d = all_differences(a, b);
    auto s = stats::hodges_lehmann(a, b);
    EXPECT_EQ(s.ci.lo, d[23]);
    EXPECT_EQ(s.ci.hi, d[76]);
    // Normal approximation, m = n = 40: k = floor(800.5 - 1.96 * sqrt(1600 * 81 / 12)) = 596.
    a = lognormal(rng, 40, 0, 1);
    b = lognormal(rng, 40, 0, 1);
    d = all_differences(a, b);
    s = stats::hodges_lehmann(a, b);
    EXPECT_EQ(s.ci.lo, d[595]);
    EXPECT_EQ(s.ci.hi, d[1004]);
    EXPECT_DOUBLE_EQ(s.estimate, stats::median(d));
    // Sizes past the point where candidates are sampled rather than gathered,
    // with heavy ties. The critical ranks: from the normal approximation for
    // 300 x 200 and 1000 x 37; exact for one or two values against many,
    // where U is far from normal. 1 x n: U is uniform on 0..n, so
    // k = floor(0.025 (n + 1)). 2 x n: U = u in floor(u / 2) + 1 ways (u <= n)
    // out of C(n + 2, 2).
    auto rank_2xn = [](double n) {
        double all = (n + 2) * (n + 1) / 2, acc = 0;
        size_t k = 1;
        for (size_t u = 0; (acc += std::floor(u / 2.0) + 1) / all <= 0.025; ++u) k = u + 1;
        return k;
    };
    for (auto [m, n] : {std::pair<size_t, size_t>{300, 200}, {1000, 37}, {1, 5000}, {5000, 2}, {2, 999}}) {
        std::vector<double> x(m), y(n);
        std::uniform_int_distribution<int> level(0, 100000);  // rare ties: a rank off by one shows
        for (double& v : x) v = level(rng) * 1e-4;
        for (double& v : y) v = level(rng) * 1e-4 + 0.3;
        auto diffs = all_differences(x, y);
        double cells = double(m) * n;
        double sd = std::sqrt(cells * (m + n + 1) / 12);
        size_t k = std::min(m, n) == 1   ? size_t(0.025 * (cells + 1))
                   : std::min(m, n) == 2 ? rank_2xn(std::max(m, n))
                                         : size_t(std::floor(cells / 2 + 0.5 - 1.959963984540054 * sd));
        auto hl = stats::hodges_lehmann(x, y);
        EXPECT_DOUBLE_EQ(hl.estimate, stats::median(diffs)) << m << "x" << n;
        EXPECT_EQ(hl.ci.lo, diffs[k - 1]) << m << "x" << n << " k=" << k;
        EXPECT_EQ(hl.ci.hi, diffs[diffs.size() - k]) << m << "x" << n << " k=" << k;
    }
}

TEST(Inference, HodgesLehmannLargeInputsSelectWithoutMaterialising) {
    // 3000 x 1500 with ties: 4.5M differences, checked against nth_element.
    Rng rng(4);
    auto a = lognormal(rng, 3000, 0, 0.5), b = lognormal(rng, 1500, 0, 0.5, 0.1);
    for (double& x : a) x = std::round(x * 100);
    for (double& x : b) x = std::round(x * 100);
    std::vector<double> d;
    d.reserve(a.size() * b.size());
    for (double x : a)
        for (double y : b) d.push_back(y - x);
    size_t half = d.size() / 2;
    std::nth_element(d.begin(), d.begin() + half, d.end());
    double hi_mid = d[half];
    double lo_mid = *std::max_element(d.begin(), d.begin() + half);
    EXPECT_DOUBLE_EQ(stats::hodges_lehmann(a, b).estimate, (lo_mid + hi_mid) / 2);
    // 100k x 80k (8e9 differences) recovers a known shift.
    auto big_a = lognormal(rng, 100000, 0, 0.5), big_b = lognormal(rng, 80000, 0, 0.5, 0.25);
    auto s = stats::hodges_lehmann(big_a, big_b);
    EXPECT_NEAR(s.estimate, 0.25, 0.01);
    EXPECT_LT(s.ci.lo, 0.25);
    EXPECT_GT(s.ci.hi, 0.25);
    EXPECT_LT(s.ci.hi - s.ci.lo, 0.02);
}

TEST(Inference, HodgesLehmannCoversKnownShift) {
    // B = same skewed noise + d. Under a pure shift the interval is
    // distribution-free: exact coverage for 10 x 10, normal-approximate for 40 x 40.
    const int trials = 2000;
    const double d = 3;
    for (size_t n : {10, 40}) {
        Rng rng(200 + n);
        int hit = 0;
        for (int t = 0; t < trials; ++t) {
            auto a = lognormal(rng, n, 2, 0.8), b = lognormal(rng, n, 2, 0.8, d);
            auto ci = stats::hodges_lehmann(a, b).ci;
            hit += ci.lo <= d && d <= ci.hi;
        }
        double rate = double(hit) / trials, expect = stats::shift_ci_coverage(n, n);
        std::cout << "hodges_lehmann m=n=" << n << ": covered " << rate * 100 << "% (nominal "
                  << expect * 100 << "%, " << trials << " trials)\n";
        RecordProperty("hl_coverage_n" + std::to_string(n), std::to_string(rate));
        EXPECT_NEAR(rate, expect, slack(expect, trials));
        EXPECT_NEAR(rate, 0.95, 0.03);
    }
}

TEST(Inference, MannWhitneyExactSmallCases) {
    std::vector<double> a{1, 2, 3, 4, 5}, b{6, 7, 8, 9, 10};
    EXPECT_NEAR(stats::mann_whitney_p(a, b), 2.0 / 252, 1e-15);
    EXPECT_NEAR(stats::mann_whitney_p(b, a), 2.0 / 252, 1e-15);
    // 3 vs 2, complete separation: 2 of C(5, 2) = 10 arrangements are as extreme.
    std::vector<double> a3{1, 2, 3}, b2{4, 5};
    EXPECT_NEAR(stats::mann_whitney_p(a3, b2), 0.2, 1e-15);
    // a = {1, 2, 4}, b = {3, 5}: U_b = 5 of 6, and P(U <= 1) = 2 / 10.
    std::vector<double> a4{1, 2, 4}, b4{3, 5};
    EXPECT_NEAR(stats::mann_whitney_p(a4, b4), 0.4, 1e-15);
    // Interleaved: p = 1.
    std::vector<double> x{1, 4}, y{2, 3};
    EXPECT_DOUBLE_EQ(stats::mann_whitney_p(x, y), 1);
}

TEST(Inference, MannWhitneyExactAgreesWithIndependentDistribution) {
    Rng rng(5);
    for (int t = 0; t < 50; ++t) {
        size_t m = 2 + t % 15, n = 3 + t % 11;
        auto a = lognormal(rng, m, 0, 1), b = lognormal(rng, n, 0.3, 1);
        double u = 0;
        for (double x : a)
            for (double y : b) u += y > x;
        auto counts = u_counts(m, n);
        double total = std::accumulate(counts.begin(), counts.end(), 0.0);
        size_t tail = std::min<size_t>(size_t(u), m * n - size_t(u));
        double p = 2 * std::accumulate(counts.begin(), counts.begin() + tail + 1, 0.0) / total;
        EXPECT_NEAR(stats::mann_whitney_p(a, b), std::min(1.0, p), 1e-12) << m << "x" << n;
    }
}

TEST(Inference, MannWhitneyTiesUseMidranksAndCorrection) {
    // Pooled 1 2 2 2 3 3 3 4 (b holds one 2, two 3s, the 4): midranks 1, 3, 6, 8,
    // R_b = 3 + 6 + 6 + 8 = 23, U_b = 23 - 10 = 13 against a mean of 8.
    // Tie term sum(t^3 - t) = 24 + 24 = 48, so Var = 16/12 * (9 - 48/56) = 76/7.
    std::vector<double> a{1, 2, 2, 3}, b{2, 3, 3, 4};
    double expect = std::erfc((13 - 8 - 0.5) / std::sqrt(76.0 / 7) / std::sqrt(2.0));
    EXPECT_NEAR(stats::mann_whitney_p(a, b), expect, 1e-14);
    EXPECT_DOUBLE_EQ(stats::mann_whitney_p(a, b), stats::mann_whitney_p(b, a));
    std::vector<double> same{4, 4, 4}, same2{4, 4};
    EXPECT_DOUBLE_EQ(stats::mann_whitney_p(same, same2), 1);
}

TEST(Inference, MannWhitneyIsSymmetric) {
    Rng rng(6);
    for (size_t n : {4, 12, 30, 200}) {
        auto a = lognormal(rng, n, 0, 1), b = lognormal(rng, n + 3, 0.2, 1);
        for (double& x : a) x = std::round(x * 4);  // ties across the samples
        for (double& x : b) x = std::round(x * 4);
        EXPECT_DOUBLE_EQ(stats::mann_whitney_p(a, b), stats::mann_whitney_p(b, a)) << n;
    }
}

TEST(Inference, CompareDetectsOnePercentShiftAtHalfPercentNoise) {
    // Cycles ~ 1000 with CV 0.5%; B costs 1% more. m = n = 30, 500 trials each
    // for normal and for lognormal noise.
    const int trials = 500;
    for (bool skewed : {false, true}) {
        Rng rng(skewed ? 7 : 8);
        int slower = 0, faster = 0;
        for (int t = 0; t < trials; ++t) {
            auto a = skewed ? lognormal(rng, 30, std::log(1000), 0.005) : normal(rng, 30, 1000, 5);
            auto b = skewed ? lognormal(rng, 30, std::log(1010), 0.005) : normal(rng, 30, 1010, 5);
            auto c = stats::compare(a, b);
            slower += c.verdict == stats::Verdict::Slower;
            faster += c.verdict == stats::Verdict::Faster;
        }
        double power = double(slower) / trials;
        std::cout << "power, +1% at CV 0.5%, m=n=30, " << (skewed ? "lognormal" : "normal")
                  << " noise: " << power * 100 << "% (" << trials << " trials)\n";
        RecordProperty(skewed ? "power_lognormal" : "power_normal", std::to_string(power));
        EXPECT_GE(power, 0.8);
        EXPECT_EQ(faster, 0);
    }
}

TEST(Inference, CompareFalsePositiveRate) {
    const int trials = 1000;
    Rng rng(9);
    int wrong = 0;
    for (int t = 0; t < trials; ++t) {
        auto a = lognormal(rng, 30, std::log(1000), 0.05), b = lognormal(rng, 30, std::log(1000), 0.05);
        wrong += stats::compare(a, b).verdict != stats::Verdict::NoDifference;
    }
    double rate = double(wrong) / trials;
    std::cout << "false positives, identical distributions, m=n=30, alpha 0.05: " << rate * 100 << "% ("
              << trials << " trials)\n";
    RecordProperty("false_positive_rate", std::to_string(rate));
    EXPECT_LE(rate, 0.07);
}

TEST(Inference, MinDetectableShiftIsCalibrated) {
    // Injecting exactly the predicted shift should be detected about 80% of the time.
    const int trials = 500;
    Rng rng(10);
    const double sigma = 5;
    double shift = (stats::normal_quantile(0.975) + stats::normal_quantile(0.8)) * sigma * std::sqrt(2.0 / 30) /
                   std::sqrt(3 / std::numbers::pi);
    int hit = 0;
    double estimated = 0;
    for (int t = 0; t < trials; ++t) {
        auto a = normal(rng, 30, 1000, sigma), b = normal(rng, 30, 1000 + shift, sigma);
        auto c = stats::compare(a, b);
        hit += c.verdict == stats::Verdict::Slower;
        estimated += c.min_detectable / trials;
    }
    double power = double(hit) / trials;
    std::cout << "power at the predicted minimum detectable shift (" << shift << "; mean estimate "
              << estimated << "): " << power * 100 << "%\n";
    EXPECT_NEAR(power, 0.8, 0.1);
    EXPECT_NEAR(estimated, shift, 0.15 * shift);
}

TEST(Inference, MinDetectableShiftScales) {
    Rng rng(11);
    auto small = normal(rng, 10, 1000, 5), small2 = normal(rng, 10, 1000, 5);
    auto large = normal(rng, 1000, 1000, 5), large2 = normal(rng, 1000, 1000, 5);
    auto noisy = normal(rng, 1000, 1000, 50), noisy2 = normal(rng, 1000, 1000, 50);
    double s = stats::min_detectable_shift(small, small2), l = stats::min_detectable_shift(large, large2);
    double z = stats::min_detectable_shift(noisy, noisy2);
    EXPECT_GT(s, 5 * l);  // sqrt(100) = 10 times, give or take scale estimates
    EXPECT_GT(z, 5 * l);
    // Expected: 2.8016 * 5 * sqrt(2 / 1000) / sqrt(3 / pi) = 0.641.
    EXPECT_NEAR(l, 0.641, 0.06);
    // Coarse timer: most values tie so the MAD is 0; the stddev stands in.
    std::vector<double> coarse{10, 10, 10, 10, 10, 10, 12, 8}, coarse2{10, 10, 10, 10, 10, 10, 12, 8};
    EXPECT_GT(stats::min_detectable_shift(coarse, coarse2), 0);
    std::vector<double> one{1}, other{2};
    EXPECT_TRUE(std::isinf(stats::min_detectable_shift(one, other)));
}

TEST(Inference, CompareRelativeFigures) {
    std::vector<double> a{100, 101, 99, 100, 102, 98, 100, 101, 99, 100};
    std::vector<double> b{90, 91, 89, 90, 92, 88, 90, 91, 89, 90};
    auto c = stats::compare(a, b);
    EXPECT_EQ(c.verdict, stats::Verdict::Faster);
    EXPECT_LT(c.p, 0.001);
    EXPECT_DOUBLE_EQ(c.shift.estimate, -10);
    EXPECT_DOUBLE_EQ(c.rel_shift, -0.1);
    EXPECT_DOUBLE_EQ(c.rel_ci.lo, c.shift.ci.lo / 100);
    EXPECT_DOUBLE_EQ(c.rel_ci.hi, c.shift.ci.hi / 100);
    EXPECT_LE(c.rel_ci.lo, c.rel_shift);
    EXPECT_GE(c.rel_ci.hi, c.rel_shift);
    EXPECT_GT(c.min_detectable, 0);
    EXPECT_EQ(stats::compare(b, a).verdict, stats::Verdict::Slower);
    EXPECT_EQ(stats::compare(a, a).verdict, stats::Verdict::NoDifference);
}

TEST(Inference, PercentilesMatchQuantile) {
    Rng rng(12);
    auto xs = lognormal(rng, 1001, 0, 1);
    std::vector<double> qs{0, 0.1, 0.25, 0.5, 0.9, 0.99, 0.999, 1};
    auto p = stats::percentiles(xs, qs);
    ASSERT_EQ(p.size(), qs.size());
    for (size_t i = 0; i < qs.size(); ++i) EXPECT_DOUBLE_EQ(p[i], stats::quantile(xs, qs[i])) << qs[i];
    std::vector<double> bad{1.5};
    EXPECT_THROW(stats::percentiles(xs, bad), std::invalid_argument);
}

TEST(Inference, Histogram) {
    std::vector<double> xs(10);
    std::iota(xs.begin(), xs.end(), 0.0);
    auto h = stats::histogram(xs, 5, false);
    EXPECT_EQ(h.counts, (std::vector<uint64_t>{2, 2, 2, 2, 2}));
    EXPECT_FALSE(h.log_scale);
    // Log bins [1, 10), [10, 100), [100, 1000].
    std::vector<double> spread{1, 20, 300, 1000};
    auto lg = stats::histogram(spread, 3, true);
    EXPECT_TRUE(lg.log_scale);
    EXPECT_EQ(lg.counts, (std::vector<uint64_t>{1, 1, 2}));
    // Non-positive values cannot be log-binned: linear, and the result says so.
    std::vector<double> with_zero{0, 1, 2};
    EXPECT_FALSE(stats::histogram(with_zero, 3, true).log_scale);
    std::vector<double> flat{5, 5, 5};
    auto f = stats::histogram(flat, 8, true);
    EXPECT_EQ(f.counts, std::vector<uint64_t>{3});
    Rng rng(13);
    auto many = lognormal(rng, 100000, 7, 1);
    auto hm = stats::histogram(many, 12, true);
    EXPECT_EQ(std::accumulate(hm.counts.begin(), hm.counts.end(), uint64_t(0)), many.size());
    EXPECT_THROW(stats::histogram(xs, 0, false), std::invalid_argument);
}

TEST(Inference, EmptyInputThrows) {
    std::vector<double> none, some{1, 2, 3};
    std::vector<double> qs{0.5};
    EXPECT_THROW(stats::stddev(none), std::invalid_argument);
    EXPECT_THROW(stats::cv(none), std::invalid_argument);
    EXPECT_THROW(stats::median_ci(none), std::invalid_argument);
    EXPECT_THROW(stats::median_ci_coverage(0), std::invalid_argument);
    EXPECT_THROW(stats::outliers(none), std::invalid_argument);
    EXPECT_THROW(stats::hodges_lehmann(none, some), std::invalid_argument);
    EXPECT_THROW(stats::hodges_lehmann(some, none), std::invalid_argument);
    EXPECT_THROW(stats::shift_ci_coverage(0, 3), std::invalid_argument);
    EXPECT_THROW(stats::mann_whitney_p(none, some), std::invalid_argument);
    EXPECT_THROW(stats::mann_whitney_p(some, none), std::invalid_argument);
    EXPECT_THROW(stats::min_detectable_shift(none, some), std::invalid_argument);
    EXPECT_THROW(stats::compare(some, none), std::invalid_argument);
    EXPECT_THROW(stats::percentiles(none, qs), std::invalid_argument);
    EXPECT_THROW(stats::histogram(none, 4, false), std::invalid_argument);
    EXPECT_THROW(stats::median_ci(some, 1.0), std::invalid_argument);
    EXPECT_THROW(stats::compare(some, some, 0), std::invalid_argument);
}
