#include "stats/reference_test.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include "stats/ab.h"
#include "stats/summary.h"

namespace eb::stats {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double choose(double n, double k) {
    if (k < 0 || k > n) return 0;
    double c = 1;
    for (double i = 1; i <= k; ++i) c = c * (n - k + i) / i;
    return c;
}

// Next k-combination of [0, n) in lexicographic order; false after the last.
bool next_combination(std::vector<size_t>& c, size_t n) {
    size_t k = c.size(), i = k;
    while (i > 0 && c[i - 1] == n - k + i - 1) --i;
    if (i == 0) return false;
    ++c[i - 1];
    for (size_t j = i; j < k; ++j) c[j] = c[j - 1] + 1;
    return true;
}

double mean_at(const std::vector<double>& x, const std::vector<size_t>& idx) {
    double s = 0;
    for (size_t i : idx) s += x[i];
    return s / double(idx.size());
}

void enumerate(Reference& r, const std::vector<double>& x) {
    std::vector<size_t> a(r.side_a), b(r.side_b);
    std::iota(a.begin(), a.end(), 0);
    do {
        std::vector<size_t> rest;
        for (size_t i = 0; i < x.size(); ++i)
            if (!std::binary_search(a.begin(), a.end(), i)) rest.push_back(i);
        std::vector<size_t> pick(r.side_b);
        std::iota(pick.begin(), pick.end(), 0);
        double ma = mean_at(x, a);
        do {
            for (size_t j = 0; j < pick.size(); ++j) b[j] = rest[pick[j]];
            r.diffs.push_back(mean_at(x, b) - ma);
        } while (next_combination(pick, rest.size()));
    } while (next_combination(a, x.size()));
}

void draw(Reference& r, const std::vector<double>& x) {
    std::mt19937_64 rng(0x5eed);
    std::vector<size_t> idx(x.size());
    std::iota(idx.begin(), idx.end(), 0);
    for (size_t i = 0; i < kMaxDifferences; ++i) {
        std::shuffle(idx.begin(), idx.end(), rng);
        std::vector<size_t> a(idx.begin(), idx.begin() + std::ptrdiff_t(r.side_a));
        std::vector<size_t> b(idx.begin() + std::ptrdiff_t(r.side_a), idx.begin() + std::ptrdiff_t(r.side_a + r.side_b));
        r.diffs.push_back(mean_at(x, b) - mean_at(x, a));
    }
}

// The |d| beyond which a two-sided test at `level` rejects (before the
// factor): p < level exactly when fewer than level (1 + N) - 1 reach |obs|.
double critical(const Reference& r, double level) {
    double allowed = level * (1 + double(r.abs_desc.size())) - 1;
    if (!(allowed > 0)) return kInf;
    auto j = size_t(std::ceil(allowed) - 1);
    return j < r.abs_desc.size() ? r.abs_desc[j] : 0;
}

} // namespace

double reference_size(size_t runs, size_t na, size_t nb) {
    double n = choose(double(runs), double(na)) * choose(double(runs) - double(na), double(nb));
    return na == nb ? n / 2 : n;
}

Reference make_reference(const std::vector<double>& x, size_t na, size_t nb) {
    if (na == 0 || nb == 0 || x.size() < na + nb || x.size() < 2)
        throw std::invalid_argument("a reference needs as many calibration runs as the sides hold together");
    Reference r;
    r.runs = x.size();
    r.side_a = na;
    r.side_b = nb;
    r.run_sd = stddev(x);
    double ordered = reference_size(x.size(), na, nb) * (na == nb ? 2 : 1);
    bool every = ordered <= double(kMaxDifferences);
    if (every) enumerate(r, x);  // (S, T) and, with equal sides, (T, S) too
    else draw(r, x);
    std::sort(r.diffs.begin(), r.diffs.end());
    for (double d : r.diffs) r.abs_desc.push_back(std::fabs(d));
    std::sort(r.abs_desc.begin(), r.abs_desc.end(), std::greater<>());
    if (every && na == nb) {  // each |d| twice (d and -d): once
        std::vector<double> once;
        for (size_t i = 0; i < r.abs_desc.size(); i += 2) once.push_back(r.abs_desc[i]);
        r.abs_desc = std::move(once);
    }
    return r;
}

double min_p(const Reference& r) { return 1 / (1 + double(r.abs_desc.size())); }

size_t runs_needed(double alpha, size_t na, size_t nb) {
    for (size_t k = std::max<size_t>(2, na + nb);; ++k)
        if (1 / (1 + std::min(reference_size(k, na, nb), double(kMaxDifferences))) < alpha || k > 100000) return k;
}

double finite_factor(size_t runs, double level) {
    if (runs < 2) return kInf;
    double q = 1 - level / 2;
    return t_quantile(q, double(runs - 1)) / normal_quantile(q);
}

double reference_p(const Reference& r, double obs, double level) {
    double x = std::fabs(obs) / finite_factor(r.runs, level) * (1 - 1e-12);  // a tie counts against obs
    auto n = size_t(std::upper_bound(r.abs_desc.begin(), r.abs_desc.end(), x, std::greater<>()) - r.abs_desc.begin());
    return (1 + double(n)) / (1 + double(r.abs_desc.size()));
}

double reference_p_upper(const Reference& r, double obs, double shift, double level) {
    double x = (obs - shift) / finite_factor(r.runs, 2 * level);
    x -= 1e-12 * std::fabs(x);
    auto n = size_t(r.diffs.end() - std::lower_bound(r.diffs.begin(), r.diffs.end(), x));
    return (1 + double(n)) / (1 + double(r.diffs.size()));
}

Interval reference_ci(const Reference& r, double obs, double alpha) {
    double c = critical(r, alpha) * finite_factor(r.runs, alpha);
    return {obs - c, obs + c};
}

double reference_detectable(const Reference& r, double alpha, double power) {
    if (!(min_p(r) < alpha)) return kInf;
    TTest t;
    t.se = r.run_sd * std::sqrt(1 / double(r.side_a) + 1 / double(r.side_b));
    t.df = double(r.runs - 1);
    // The ranks' own: the critical |d| plus the power quantile of the
    // differences, both read wider; heavy tails make it the larger one.
    double ranks = finite_factor(r.runs, alpha) * (critical(r, alpha) + quantile(r.diffs, power));
    return std::max(detectable_difference(t, alpha, power), ranks);
}

} // namespace eb::stats
