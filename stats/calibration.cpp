#include "stats/calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "stats/summary.h"

namespace eb::stats {

namespace {

// A difference of two variance estimates, floored at 0, with Satterthwaite's
// df: v^2 / (a^2 / df_a + b^2 / df_b) (never more than df_a).
Component difference(double a, double df_a, double b, double df_b) {
    double v = a - b;
    if (!(v > 0) || !(df_a > 0)) return {0, 0};
    double den = a * a / df_a + (df_b > 0 ? b * b / df_b : 0);
    return {v, std::min(df_a, v * v / den)};
}

} // namespace

// Pooled (1.4826 MAD)^2 of log repeats about their session's median, (n - 1)
// weights: robust to the lone 55% repeat a session holds now and then.
Component robust_repeats(const std::vector<std::vector<double>>& sessions) {
    double ss = 0, df = 0;
    for (const auto& s : sessions) {
        if (s.size() < 2) continue;
        double med = median(s);
        std::vector<double> dev;
        for (double x : s) dev.push_back(std::fabs(x - med));
        double mad = 1.4826 * median(dev);
        ss += double(s.size() - 1) * mad * mad;
        df += double(s.size() - 1);
    }
    return df > 0 ? Component{ss / df, df} : Component{};
}

LevelTable estimate_levels(const std::vector<std::vector<std::vector<double>>>& runs) {
    std::vector<std::vector<double>> medians;
    for (const auto& run : runs) {
        auto& m = medians.emplace_back();
        for (const auto& s : run) m.push_back(s.empty() ? 0 : median(s));
    }
    return estimate_levels(runs, medians);
}

LevelTable estimate_levels(const std::vector<std::vector<std::vector<double>>>& runs,
                           const std::vector<std::vector<double>>& session_medians) {
    if (session_medians.size() != runs.size()) throw std::invalid_argument("a median for every run's sessions");
    LevelTable t;
    std::vector<double> run_means;
    std::vector<std::vector<double>> all_sessions;
    double ssw = 0, inv = 0, repeats = 0;
    for (size_t k = 0; k < runs.size(); ++k) {
        const auto& run = runs[k];
        std::vector<double> medians;
        for (size_t i = 0; i < run.size(); ++i)
            if (const auto& s = run[i]; !s.empty()) {
                medians.push_back(session_medians.at(k).at(i));
                all_sessions.push_back(s);
                repeats += double(s.size());
            }
        if (medians.empty()) continue;
        double m = mean(medians);
        for (double x : medians) ssw += (x - m) * (x - m);
        run_means.push_back(m);
        inv += 1 / double(medians.size());
        t.sessions += medians.size();
    }
    t.runs = run_means.size();
    if (t.runs < 2) throw std::invalid_argument("a calibration needs two or more runs with sessions");
    double k = double(t.runs), n = double(t.sessions);
    t.inv_sessions = inv / k;
    t.repeats = repeats / n;
    t.run_mean = {stddev(run_means) * stddev(run_means), k - 1};
    t.session_median = n > k ? Component{ssw / (n - k), n - k} : Component{};
    t.repeat = robust_repeats(all_sessions);
    t.session = difference(t.session_median.var, t.session_median.df,
                           kMedianEfficiency * t.repeat.var / t.repeats, t.repeat.df);
    t.run = difference(t.run_mean.var, t.run_mean.df, t.session_median.var * t.inv_sessions, t.session_median.df);
    return t;
}

RoundsPlan plan_rounds(const LevelTable& t, double target, double alpha, double power) {
    double var = 2 * t.session_median.var;
    for (size_t n = 2; n <= 1000; ++n) {
        TTest tt;
        tt.se = std::sqrt(var / double(n));
        tt.df = double(n - 1);
        double d = std::exp(detectable_difference(tt, alpha, power)) - 1;
        if (d <= target) return {n, d};
    }
    return {0, std::nan("")};
}

double design_variance(const LevelTable& t, double runs, double sessions, double repeats) {
    return (t.run.var + (t.session.var + kMedianEfficiency * t.repeat.var / repeats) / sessions) / runs;
}

namespace {

// The fewest runs per side (2..1000) at these within-run counts whose
// detectable difference on runs - 1 df reaches the target.
Allocation fewest_runs(const LevelTable& t, const Costs& c, size_t ses, size_t rep, double target, double alpha,
                       double power) {
    Allocation a;
    a.sessions = ses;
    a.repeats = rep;
    for (size_t k = 2; k <= 1000; k = k < 20 ? k + 1 : k + k / 10) {
        TTest tt;
        tt.se = std::sqrt(2 * design_variance(t, double(k), double(ses), double(rep)));
        tt.df = double(k - 1);
        a.runs = k;
        a.detectable = std::exp(detectable_difference(tt, alpha, power)) - 1;
        if (a.detectable <= target) {
            a.reachable = true;
            break;
        }
    }
    a.cost_s = double(a.runs) * (c.run + double(ses) * (c.session + double(rep) * c.repeat));
    return a;
}

// sqrt(c_above var_below / (c_below var_above)), the KJ count of a level per
// unit of the level above, kept within [1, cap].
double kj_count(double c_above, double var_below, double c_below, double var_above, double cap) {
    if (!(var_below > 0)) return 1;
    if (!(var_above > 0) || !(c_below > 0)) return cap;
    return std::clamp(std::sqrt(c_above * var_below / (c_below * var_above)), 1.0, cap);
}

} // namespace

Allocation allocate(const LevelTable& t, const Costs& c, double target, double alpha, double power) {
    if (!(target > 0)) throw std::invalid_argument("the target detectable difference must be positive");
    double rep = kj_count(c.session, kMedianEfficiency * t.repeat.var, c.repeat, t.session.var, 1000);
    double ses = kj_count(c.run, t.session.var + kMedianEfficiency * t.repeat.var / rep,
                          c.session + rep * c.repeat, t.run.var, 100);
    Allocation best;
    for (double r : {std::floor(rep), std::ceil(rep)})
        for (double s : {std::floor(ses), std::ceil(ses)}) {
            auto a = fewest_runs(t, c, size_t(std::max(1.0, s)), size_t(std::max(1.0, r)), target, alpha, power);
            bool better = best.runs == 0 || (a.reachable && !best.reachable) ||
                          (a.reachable == best.reachable && (a.reachable ? a.cost_s < best.cost_s
                                                                         : a.detectable < best.detectable));
            if (better) best = a;
        }
    return best;
}

} // namespace eb::stats
