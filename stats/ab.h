// A/B inference where the unit is an independent execution (a session, a run
// or a round), never a repeat inside one VM: repeats share their VM's state, so
// treating them as independent turns run-to-run drift into "significance".
// Values are logs of per-unit medians, so effects are ratios. Pure; no I/O.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "stats/inference.h"

namespace eb::stats {

// Student t: the p quantile (p in (0, 1)) and the two-sided tail P(|T| >= |t|).
double t_quantile(double p, double df);
double t_two_sided(double t, double df);
// The upper tail P(T >= t): a one-sided test's p.
double t_upper(double t, double df);

// A mean difference with its t interval and test.
struct TTest {
    double estimate = 0;   // mean(b) - mean(a), or mean(d)
    double se = 0;
    double df = 0;
    double p = 1;          // two-sided
    Interval ci{0, 0};     // (1 - alpha)
};

// Welch's two-sample t (unequal variances, Welch-Satterthwaite df); needs at
// least two values a side, else std::invalid_argument.
TTest welch(std::span<const double> a, std::span<const double> b, double alpha = 0.05);
// One-sample t of mean(d) = 0 (paired differences, n - 1 df); needs n >= 2.
TTest one_sample_t(std::span<const double> d, double alpha = 0.05);

// The smallest true difference the two-sided test at alpha detects with this
// power, from the noncentral t on the test's df, with the observed se made
// median-unbiased (at few units it is more often too small than too large).
// Infinite when df is 0: no verdict is reachable.
double detectable_difference(const TTest& t, double alpha = 0.05, double power = 0.8);

// Two levels of a nested design, e.g. repeats inside sessions: `within` is the
// pooled SD of values about their own group's mean; `between` is the SD of the
// group means with within's share (within^2 times the mean of 1 / group size)
// taken out, floored at 0 (the one-way ANOVA method-of-moments estimate). NaN
// where a level has too few values to say anything.
struct VarianceComponents {
    double within_sd;
    double between_sd;
};
VarianceComponents variance_components(const std::vector<std::vector<double>>& groups);

} // namespace eb::stats
