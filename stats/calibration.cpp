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

TTest calibrated_t(double estimate, const LevelTable& cal, SideShape a, SideShape b, double alpha) {
    if (!(cal.run_mean.df > 0) || a.runs == 0 || b.runs == 0)
        throw std::invalid_argument("a calibrated test needs a calibration with two or more runs, and runs a side");
    double ka = double(a.runs), kb = double(b.runs);
    double run_part = cal.run_mean.var * (1 / ka + 1 / kb);
    double c = (a.inv_sessions - cal.inv_sessions) / ka + (b.inv_sessions - cal.inv_sessions) / kb;
    double within = cal.session_median.var * c;  // negative when the sides have more sessions than it had
    double v = run_part + within;
    double den = run_part * run_part / cal.run_mean.df +
                 (cal.session_median.df > 0 ? within * within / cal.session_median.df : 0);
    TTest t;
    t.estimate = estimate;
    t.df = den > 0 ? std::min(v * v / den, cal.run_mean.df + cal.session_median.df) : cal.run_mean.df;
    // More sessions than the calibration had take out at most the sessions'
    // whole share: what the sides' own sessions carry stays (run offsets >= 0).
    double floor = cal.session_median.var * (a.inv_sessions / ka + b.inv_sessions / kb);
    if (v < floor) {
        v = floor;
        t.df = cal.session_median.df;
    }
    if (!(t.df > 0)) t.df = cal.run_mean.df;
    t.se = std::sqrt(v);
    if (t.se == 0) {  // every calibration run agreed exactly: no spread to scale by
        t.p = estimate == 0 ? 1 : 0;
        t.ci = {estimate, estimate};
        return t;
    }
    t.p = t_two_sided(estimate / t.se, t.df);
    double h = t_quantile(1 - alpha / 2, t.df) * t.se;
    t.ci = {estimate - h, estimate + h};
    return t;
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
