// Inference over samples: spread, intervals, A/B shift tests, percentiles and
// histograms. Pure functions; no I/O. Distribution-free where it matters,
// because cycle counts have heavy right tails and ties.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace eb::stats {

// Every function throws std::invalid_argument on an empty sample set.

struct Interval {
    double lo, hi;
};

// Sample standard deviation (n - 1); needs n >= 2.
double stddev(std::span<const double> xs);
// stddev / mean; needs n >= 2 and a non-zero mean.
double cv(std::span<const double> xs);

// Standard normal CDF and its inverse (p in (0, 1)).
double normal_cdf(double x);
double normal_quantile(double p);

// Distribution-free interval for the median: the symmetric pair of order
// statistics whose exact binomial(n, 1/2) coverage is >= conf. Below n = 6 at
// 95% no pair reaches conf; then this is [min, max], the widest there is, and
// median_ci_coverage tells how far short it falls.
Interval median_ci(std::span<const double> xs, double conf = 0.95);
// The exact coverage of median_ci for n values (>= conf unless n is too small).
double median_ci_coverage(size_t n, double conf = 0.95);

// Tukey fences at 1.5 * IQR (type 7 quartiles); indices into xs, ascending.
struct Outliers {
    std::vector<size_t> low, high;
};
Outliers outliers(std::span<const double> xs);

// Location shift b - a: the Hodges-Lehmann estimate (median of all b_j - a_i)
// and the interval between the order statistics of those differences picked
// by the Mann-Whitney critical value. The critical value is exact while the
// null distribution of U can be counted exactly in doubles (C(m+n, m) < 2^52
// and m * n <= 1e6: m = n <= 27, or 1-3 values against many), from the normal
// approximation (tie-free variance) beyond. The m * n differences are never
// stored: order statistics are selected on the implicit sorted matrix in
// O(m + n) memory (100k x 100k takes ~0.15 s). When m and n are too small to
// reach conf (e.g. 3 x 3 at 95%), ci spans all differences.
struct Shift {
    double estimate;
    Interval ci;
};
Shift hodges_lehmann(std::span<const double> a, std::span<const double> b, double conf = 0.95);
// The coverage of hodges_lehmann's interval for sizes m and n: exact where its
// critical value is, otherwise the normal approximation's figure.
double shift_ci_coverage(size_t m, size_t n, double conf = 0.95);

// Two-sided p-value of the Wilcoxon-Mann-Whitney rank-sum test. Exact without
// ties where hodges_lehmann's interval is; otherwise normal approximation on
// midranks with tie-corrected variance and a continuity correction. 1 when
// all values tie.
double mann_whitney_p(std::span<const double> a, std::span<const double> b);

// The smallest shift the rank test at alpha detects with this power (normal
// approximation, ARE 3/pi against the t-test), from a robust pooled scale:
// 1.4826 * MAD per sample (its stddev if the MAD is 0 from ties), pooled with
// n - 1 weights. +infinity when m + n < 3 (no scale to estimate).
double min_detectable_shift(std::span<const double> a, std::span<const double> b, double alpha = 0.05,
                            double power = 0.8);

// A against B (samples are costs, so B below A is faster). The verdict needs
// both p < alpha and a (1 - alpha) shift interval that excludes 0. rel_* are
// the shift over median(a) (NaN when that median is 0).
enum class Verdict { Faster, Slower, NoDifference };
struct Comparison {
    Shift shift;
    double p;
    Verdict verdict;
    double rel_shift;
    Interval rel_ci;
    double min_detectable;
};
Comparison compare(std::span<const double> a, std::span<const double> b, double alpha = 0.05);

// quantile(xs, q) for every q in qs, from one sort.
std::vector<double> percentiles(std::span<const double> xs, std::span<const double> qs);

// Equal-width bins over [lo, hi] = [min, max], or over their logs when
// log_scale (only honoured when min > 0; the result says which was used).
// All-equal input gives one bin.
struct Histogram {
    double lo, hi;
    std::vector<uint64_t> counts;
    bool log_scale;
};
Histogram histogram(std::span<const double> xs, size_t bins, bool log_scale);

} // namespace eb::stats
