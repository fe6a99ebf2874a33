#include "stats/inference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "stats/summary.h"
#include "stats/preconditions.h"

namespace eb::stats {

namespace {

void need_prob(double p, const char* what) {
    if (!(p > 0 && p < 1)) throw std::invalid_argument(std::string(what) + " outside (0, 1)");
}

std::vector<double> sorted(std::span<const double> xs) {
    std::vector<double> v(xs.begin(), xs.end());
    std::sort(v.begin(), v.end());
    return v;
}

// Type 7, as summary.cpp's quantile, on an already sorted vector.
double quantile_sorted(const std::vector<double>& v, double q) {
    double pos = q * (v.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

// Order statistics k and N + 1 - k (1-based) bracket the parameter with
// probability `coverage`.
struct Ranks {
    uint64_t k;
    double coverage;
};

// For a statistic X symmetric on 0..N with cdf[j] = P(X <= j) (at least up to
// N/2): the largest k with P(X <= k - 1) <= (1 - conf) / 2, or k = 1 (the
// widest pair) when even that misses conf.
Ranks pick_ranks(const std::vector<double>& cdf, double conf) {
    double tail = (1 - conf) / 2 * (1 + 1e-12);  // slack for rounding in the sums
    uint64_t k = 1;
    while (k < cdf.size() && cdf[k] <= tail) ++k;
    return {k, 1 - 2 * cdf[k - 1]};
}

// P(B <= j) for B ~ binomial(n, 1/2), j = 0..n/2. The pmf recurrence runs in
// logs: 2^-n underflows long before n = 100k.
std::vector<double> binomial_half_cdf(size_t n) {
    std::vector<double> cdf(n / 2 + 1);
    double logp = -double(n) * std::numbers::ln2, acc = 0;
    for (size_t j = 0; j < cdf.size(); ++j) {
        acc += std::exp(logp);
        cdf[j] = acc;
        logp += std::log(double(n - j) / double(j + 1));
    }
    return cdf;
}

// The null distribution of the Mann-Whitney U is counted exactly while the
// counts fit a double's integers (C(m+n, m) < 2^52: both sizes up to 27, or a
// few values against many) and the table is small. Past that U is close to
// normal; before it, with one or two values on a side, it is not (uniform,
// triangular), so the size of the smaller sample alone does not decide.
bool exact_u(size_t m, size_t n) {
    if (uint64_t(m) * n > 1'000'000) return false;
    double ways = 1;
    for (size_t i = 1, s = std::min(m, n); i <= s; ++i)
        if ((ways = ways * double(m + n - s + i) / i) >= 0x1p52) return false;
    return true;
}

// cdf[u] = P(U <= u) under the null for sizes m and n. The counts are the
// coefficients of the Gaussian binomial [m+n choose m]_q, built by applying
// (1 - q^(l+i)) / (1 - q^i) for i = 1..s; truncating at degree m*n is exact
// because both steps only read lower coefficients.
std::vector<double> u_cdf(size_t m, size_t n) {
    size_t s = std::min(m, n), l = std::max(m, n), top = m * n;
    std::vector<double> c(top + 1, 0.0);
    c[0] = 1;
    for (size_t i = 1; i <= s; ++i) {
        for (size_t u = top; u >= l + i; --u) c[u] -= c[u - (l + i)];  // l + i >= 2: no wrap
        for (size_t u = i; u <= top; ++u) c[u] += c[u - i];
    }
    double total = 0;
    for (double& x : c) x = (total += x);
    for (double& x : c) x /= total;
    return c;
}

Ranks shift_ranks(size_t m, size_t n, double conf) {
    uint64_t cells = uint64_t(m) * n;
    if (exact_u(m, n)) return pick_ranks(u_cdf(m, n), conf);
    double mu = cells / 2.0, sd = std::sqrt(cells * double(m + n + 1) / 12);
    // P(U <= k - 1) ~ Phi((k - 1 + 0.5 - mu) / sd), continuity-corrected.
    double k = std::floor(mu + 0.5 - normal_quantile(0.5 + conf / 2) * sd);
    uint64_t kk = k < 1 ? 1 : uint64_t(k);
    return {kk, 1 - 2 * normal_cdf((kk - 0.5 - mu) / sd)};
}

// splitmix64: a fixed-seed sampler; the selected value does not depend on it.
struct Mix {
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    uint64_t operator()() {
        uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
};

// Per row i of the implicit matrix b[j] - a[i]: how many differences are < p
// and <= p. With a and b sorted a row rises with j and falls with i, so the
// counts rise with i and one two-pointer pass finds them all.
struct Cut {
    std::vector<size_t> lt, le;
    uint64_t below = 0, upto = 0;
};

void cut(const std::vector<double>& a, const std::vector<double>& b, double p, Cut& c) {
    size_t n = b.size(), j1 = 0, j2 = 0;
    c.lt.resize(a.size());
    c.le.resize(a.size());
    c.below = c.upto = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        while (j1 < n && b[j1] - a[i] < p) ++j1;
        while (j2 < n && b[j2] - a[i] <= p) ++j2;
        c.lt[i] = j1;
        c.le[i] = j2;
        c.below += j1;
        c.upto += j2;
    }
}

// The k-th smallest (0-based) of b[j] - a[i] over all pairs, a and b sorted,
// in O(m + n) memory. Each row keeps a column range of candidates (values
// strictly between the pivots so far). Floyd-Rivest style: two pivots taken
// from a random sample of candidates just either side of the target's
// expected rank bracket it with high probability, so each pass keeps about
// 1/8 of the candidates; once few remain they are gathered and nth_element'd.
double select_difference(const std::vector<double>& a, const std::vector<double>& b, uint64_t k) {
    size_t m = a.size(), n = b.size();
    const uint64_t gather = std::max<uint64_t>(4096, 4 * (uint64_t(m) + n));
    // The target's rank in a sample of 1024 strays by more than 2 sqrt(1024) = 64 rarely.
    const size_t samples = 1024, gap = 64;
    std::vector<size_t> lo(m, 0), hi(m, n);
    std::vector<uint64_t> picks(samples);
    std::vector<double> vals;
    Cut low, high;
    Mix rng;
    for (;;) {
        uint64_t total = 0, skipped = 0;  // candidates; differences below all of them
        for (size_t i = 0; i < m; ++i) {
            total += hi[i] - lo[i];
            skipped += lo[i];
        }
        uint64_t t = k - skipped;
        vals.clear();
        if (total <= gather) {
            for (size_t i = 0; i < m; ++i)
                for (size_t j = lo[i]; j < hi[i]; ++j) vals.push_back(b[j] - a[i]);
            std::nth_element(vals.begin(), vals.begin() + t, vals.end());
            return vals[t];
        }
        for (auto& r : picks) r = rng() % total;
        std::sort(picks.begin(), picks.end());
        uint64_t base = 0;
        size_t row = 0;
        for (uint64_t r : picks) {
            for (; r >= base + (hi[row] - lo[row]); ++row) base += hi[row] - lo[row];
            vals.push_back(b[lo[row] + (r - base)] - a[row]);
        }
        std::sort(vals.begin(), vals.end());
        double at = double(t) / total * samples;
        size_t il = at > gap ? size_t(at - gap) : 0, ih = std::min(samples - 1, size_t(at + gap));
        cut(a, b, vals[il], low);
        cut(a, b, vals[ih], high);
        if (k < low.below) {
            for (size_t i = 0; i < m; ++i) hi[i] = std::min(hi[i], low.lt[i]);
        } else if (k < low.upto) {
            return vals[il];
        } else if (k < high.below) {
            for (size_t i = 0; i < m; ++i) {
                lo[i] = std::max(lo[i], low.le[i]);
                hi[i] = std::min(hi[i], high.lt[i]);
            }
        } else if (k < high.upto) {
            return vals[ih];
        } else {
            for (size_t i = 0; i < m; ++i) lo[i] = std::max(lo[i], high.le[i]);
        }
    }
}

// The smallest difference above the k-th smallest v (v again if it repeats),
// i.e. the (k+1)-th: one cut, then the first difference past v in each row.
double next_difference(const std::vector<double>& a, const std::vector<double>& b, double v, uint64_t k) {
    Cut c;
    cut(a, b, v, c);
    if (c.upto > k + 1) return v;
    double next = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < a.size(); ++i)
        if (c.le[i] < b.size()) next = std::min(next, b[c.le[i]] - a[i]);
    return next;
}

// 1.4826 * MAD estimates sigma for normal data; ties can make the MAD 0 while
// the values still vary, and 0 would claim every shift is detectable.
double robust_scale(std::span<const double> xs) {
    double med = median(xs);
    std::vector<double> dev;
    dev.reserve(xs.size());
    for (double x : xs) dev.push_back(std::fabs(x - med));
    double s = 1.4826 * median(dev);
    return s == 0 && xs.size() >= 2 ? stddev(xs) : s;
}

} // namespace

double stddev(std::span<const double> xs) {
    need(xs);
    if (xs.size() < 2) throw std::invalid_argument("stddev needs at least two values");
    double mu = mean(xs), ss = 0;
    for (double x : xs) ss += (x - mu) * (x - mu);
    return std::sqrt(ss / (xs.size() - 1));
}

double cv(std::span<const double> xs) {
    double s = stddev(xs), mu = mean(xs);
    if (mu == 0) throw std::invalid_argument("cv of a zero-mean sample set");
    return s / mu;
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

// Acklam's rational approximation (relative error 1.15e-9), then one Halley
// step against erfc to bring it to double precision.
double normal_quantile(double p) {
    need_prob(p, "normal quantile");
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                               1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                               6.680131188771972e+01, -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                               -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    auto tail = [&](double q) {
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    };
    double x;
    if (p < 0.02425) {
        x = tail(std::sqrt(-2 * std::log(p)));
    } else if (p > 1 - 0.02425) {
        x = -tail(std::sqrt(-2 * std::log1p(-p)));
    } else {
        double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    double e = normal_cdf(x) - p;
    double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

double median_ci_coverage(size_t n, double conf) {
    need_prob(conf, "confidence");
    if (n == 0) throw std::invalid_argument("statistics of an empty sample set");
    return pick_ranks(binomial_half_cdf(n), conf).coverage;
}

Interval median_ci(std::span<const double> xs, double conf) {
    need(xs);
    need_prob(conf, "confidence");
    auto v = sorted(xs);
    uint64_t k = pick_ranks(binomial_half_cdf(v.size()), conf).k;
    return {v[k - 1], v[v.size() - k]};
}

Outliers outliers(std::span<const double> xs) {
    need(xs);
    auto v = sorted(xs);
    double q1 = quantile_sorted(v, 0.25), q3 = quantile_sorted(v, 0.75);
    double lo = q1 - 1.5 * (q3 - q1), hi = q3 + 1.5 * (q3 - q1);
    Outliers o;
    for (size_t i = 0; i < xs.size(); ++i) {
        if (xs[i] < lo) o.low.push_back(i);
        if (xs[i] > hi) o.high.push_back(i);
    }
    return o;
}

double shift_ci_coverage(size_t m, size_t n, double conf) {
    need_prob(conf, "confidence");
    if (m == 0 || n == 0) throw std::invalid_argument("statistics of an empty sample set");
    return shift_ranks(m, n, conf).coverage;
}

Shift hodges_lehmann(std::span<const double> a, std::span<const double> b, double conf) {
    need(a);
    need(b);
    need_prob(conf, "confidence");
    auto sa = sorted(a), sb = sorted(b);
    uint64_t cells = uint64_t(sa.size()) * sb.size();
    auto at = [&](uint64_t k) { return select_difference(sa, sb, k); };
    double mid = at((cells - 1) / 2);
    double est = cells % 2 ? mid : (mid + next_difference(sa, sb, mid, (cells - 1) / 2)) / 2;
    uint64_t k = shift_ranks(sa.size(), sb.size(), conf).k;
    return {est, {at(k - 1), at(cells - k)}};
}

double mann_whitney_p(std::span<const double> a, std::span<const double> b) {
    need(a);
    need(b);
    size_t m = a.size(), n = b.size(), total = m + n;
    std::vector<std::pair<double, bool>> all;  // value, from b
    all.reserve(total);
    for (double x : a) all.emplace_back(x, false);
    for (double x : b) all.emplace_back(x, true);
    std::sort(all.begin(), all.end());
    double rank_b = 0, ties = 0;
    for (size_t i = 0; i < total;) {
        size_t j = i;
        size_t from_b = 0;
        for (; j < total && all[j].first == all[i].first; ++j) from_b += all[j].second;
        double t = j - i;
        rank_b += from_b * (i + 1 + j) / 2.0;  // midrank of ranks i+1..j
        ties += t * t * t - t;
        i = j;
    }
    double u = rank_b - n * (n + 1) / 2.0, cells = double(m) * n;
    if (ties == 0 && exact_u(m, n)) {
        auto cdf = u_cdf(m, n);
        auto uu = uint64_t(std::llround(u));
        return std::min(1.0, 2 * cdf[std::min(uu, uint64_t(m) * n - uu)]);
    }
    double var = cells / 12 * ((total + 1) - ties / (double(total) * (total - 1)));
    if (var <= 0) return 1;  // every value tied: no evidence either way
    double z = std::max(0.0, std::fabs(u - cells / 2) - 0.5) / std::sqrt(var);
    return std::min(1.0, std::erfc(z / std::numbers::sqrt2));
}

double min_detectable_shift(std::span<const double> a, std::span<const double> b, double alpha, double power) {
    need(a);
    need(b);
    need_prob(alpha, "alpha");
    need_prob(power, "power");
    double m = a.size(), n = b.size();
    if (m + n < 3) return std::numeric_limits<double>::infinity();
    double sa = robust_scale(a), sb = robust_scale(b);
    double sigma = std::sqrt(((m - 1) * sa * sa + (n - 1) * sb * sb) / (m + n - 2));
    double z = normal_quantile(1 - alpha / 2) + normal_quantile(power);
    return z * sigma * std::sqrt(1 / m + 1 / n) / std::sqrt(3 / std::numbers::pi);
}

Comparison compare(std::span<const double> a, std::span<const double> b, double alpha) {
    need_prob(alpha, "alpha");
    Comparison c;
    c.shift = hodges_lehmann(a, b, 1 - alpha);
    c.p = mann_whitney_p(a, b);
    bool significant = c.p < alpha;
    c.verdict = significant && c.shift.ci.hi < 0   ? Verdict::Faster
                : significant && c.shift.ci.lo > 0 ? Verdict::Slower
                                                   : Verdict::NoDifference;
    double base = median(a);
    if (base == 0) {
        double nan = std::numeric_limits<double>::quiet_NaN();
        c.rel_shift = nan;
        c.rel_ci = {nan, nan};
    } else {
        double x = c.shift.ci.lo / base, y = c.shift.ci.hi / base;
        c.rel_shift = c.shift.estimate / base;
        c.rel_ci = {std::min(x, y), std::max(x, y)};
    }
    c.min_detectable = min_detectable_shift(a, b, alpha);
    return c;
}

std::vector<double> percentiles(std::span<const double> xs, std::span<const double> qs) {
    need(xs);
    for (double q : qs)
        if (!(q >= 0 && q <= 1)) throw std::invalid_argument("quantile outside [0, 1]");
    auto v = sorted(xs);
    std::vector<double> out;
    out.reserve(qs.size());
    for (double q : qs) out.push_back(quantile_sorted(v, q));
    return out;
}

Histogram histogram(std::span<const double> xs, size_t bins, bool log_scale) {
    need(xs);
    if (bins == 0) throw std::invalid_argument("histogram with no bins");
    auto [mn, mx] = std::minmax_element(xs.begin(), xs.end());
    Histogram h{*mn, *mx, {}, log_scale && *mn > 0};
    if (h.lo == h.hi) {
        h.counts = {xs.size()};
        return h;
    }
    auto f = [&](double x) { return h.log_scale ? std::log(x) : x; };
    double base = f(h.lo), span = f(h.hi) - base;
    h.counts.assign(bins, 0);
    for (double x : xs) h.counts[std::min(bins - 1, size_t((f(x) - base) / span * bins))]++;
    return h;
}

} // namespace eb::stats
