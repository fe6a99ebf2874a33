#include "stats/ab.h"

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>
#include <limits>
#include <stdexcept>

#include "stats/summary.h"
#include "stats/preconditions.h"

namespace eb::stats {

namespace {

// Doubles throughout: Boost's default promotes to long double, which costs
// several times as much and adds nothing at the precision of a p-value.
using Policy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
using StudentT = boost::math::students_t_distribution<double, Policy>;

double sample_var(std::span<const double> xs) {
    double mu = mean(xs), ss = 0;
    for (double x : xs) ss += (x - mu) * (x - mu);
    return ss / double(xs.size() - 1);
}

// Fills p and ci from estimate, se and df. A zero se (every unit identical)
// leaves nothing to scale by: the estimate is then either exactly 0 or certain.
TTest finish(TTest t, double alpha) {
    if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("alpha outside (0, 1)");
    if (t.se == 0) {
        t.p = t.estimate == 0 ? 1 : 0;
        t.ci = {t.estimate, t.estimate};
        return t;
    }
    t.p = t_two_sided(t.estimate / t.se, t.df);
    double h = t_quantile(1 - alpha / 2, t.df) * t.se;
    t.ci = {t.estimate - h, t.estimate + h};
    return t;
}

} // namespace

namespace {

// Quantiles at whole df (paired and one-sample tests, the detectable
// difference) repeat across the tests of a suite: computed once each. Welch's
// fractional df are not kept (they would grow the table without bound).
template <class F>
double at_whole_df(double p, double df, F compute) {
    if (df != std::floor(df) || df > 1e6) return compute();
    static std::mutex mu;
    static std::map<std::pair<double, double>, double> cache;
    std::lock_guard lock(mu);
    auto [it, fresh] = cache.try_emplace({p, df}, 0.0);
    if (fresh) it->second = compute();
    return it->second;
}

} // namespace

double t_quantile(double p, double df) {
    if (!(p > 0 && p < 1) || !(df > 0)) throw std::invalid_argument("t quantile: p outside (0, 1) or df <= 0");
    return at_whole_df(p, df, [&] { return boost::math::quantile(StudentT(df), p); });
}

double t_upper(double t, double df) {
    if (!(df > 0)) throw std::invalid_argument("t tail: df <= 0");
    if (std::isinf(t)) return t > 0 ? 0 : 1;
    return boost::math::cdf(boost::math::complement(StudentT(df), t));
}

double t_two_sided(double t, double df) {
    if (!(df > 0)) throw std::invalid_argument("t tail: df <= 0");
    if (std::isinf(t)) return 0;
    return 2 * boost::math::cdf(boost::math::complement(StudentT(df), std::fabs(t)));
}

TTest welch(std::span<const double> a, std::span<const double> b, double alpha) {
    if (a.size() < 2 || b.size() < 2) throw std::invalid_argument("Welch's t needs two values a side");
    double va = sample_var(a) / double(a.size()), vb = sample_var(b) / double(b.size());
    TTest t;
    t.estimate = mean(b) - mean(a);
    t.se = std::sqrt(va + vb);
    double den = va * va / double(a.size() - 1) + vb * vb / double(b.size() - 1);
    // Both variances zero: df is moot (se is 0); keep the pooled df.
    t.df = den > 0 ? (va + vb) * (va + vb) / den : double(a.size() + b.size() - 2);
    return finish(t, alpha);
}

TTest one_sample_t(std::span<const double> d, double alpha) {
    if (d.size() < 2) throw std::invalid_argument("a one-sample t needs two values");
    TTest t;
    t.estimate = mean(d);
    t.se = std::sqrt(sample_var(d) / double(d.size()));
    t.df = double(d.size() - 1);
    return finish(t, alpha);
}

namespace {

// The noncentrality (shift / se) that the two-sided t test on df detects
// with this power. It depends on df alone, so it is worked out once per df
// (to 0.01: the figure moves far less than that between neighbours); the
// noncentral t's cdf is slow.
double detectable_in_se(double df, double alpha, double power) {
    static std::mutex mu;
    static std::map<std::tuple<long, double, double>, double> cache;
    auto key = std::make_tuple(std::lround(df * 100), alpha, power);
    std::lock_guard lock(mu);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    double v = double(std::get<0>(key)) / 100;
    double crit = t_quantile(1 - alpha / 2, v);
    auto power_at = [&](double ncp) {
        boost::math::non_central_t nct(v, ncp);
        return boost::math::cdf(boost::math::complement(nct, crit)) + boost::math::cdf(nct, -crit);
    };
    double lo = 0, hi = 2 * (crit + t_quantile(power, v));  // power grows with the shift
    while (power_at(hi) < power) hi *= 2;
    while (hi - lo > 1e-6 * hi) {
        double mid = (lo + hi) / 2;
        (power_at(mid) < power ? lo : hi) = mid;
    }
    return cache[key] = hi;
}

} // namespace

double detectable_difference(const TTest& t, double alpha, double power) {
    if (!(t.df >= 0.005)) return std::numeric_limits<double>::infinity();
    if (t.se == 0) return 0;
    // The observed se is a low estimate more often than not (s is skewed at
    // few units): scale it to be median-unbiased, so that the printed figure is
    // as often above the true one as below.
    double chi_median = at_whole_df(-1, t.df, [&] { return boost::math::quantile(boost::math::chi_squared(t.df), 0.5); });
    double se = t.se * std::sqrt(t.df / chi_median);
    return detectable_in_se(t.df, alpha, power) * se;
}

VarianceComponents variance_components(const std::vector<std::vector<double>>& groups) {
    double ss_within = 0, df_within = 0, inverse_sizes = 0;
    std::vector<double> means;
    for (const auto& g : groups) {
        if (g.empty()) continue;
        means.push_back(mean(g));
        inverse_sizes += 1 / double(g.size());
        if (g.size() >= 2) {
            ss_within += sample_var(g) * double(g.size() - 1);
            df_within += double(g.size() - 1);
        }
    }
    VarianceComponents c{kNaN, kNaN};
    if (df_within > 0) c.within_sd = std::sqrt(ss_within / df_within);
    if (means.size() >= 2) {
        // A group mean of n values carries within^2 / n: with unequal sizes
        // the spread of the means holds within^2 times the mean of 1/n.
        double within_share = df_within > 0 ? ss_within / df_within * inverse_sizes / double(means.size()) : 0;
        c.between_sd = std::sqrt(std::max(0.0, sample_var(means) - within_share));
    }
    return c;
}

} // namespace eb::stats
