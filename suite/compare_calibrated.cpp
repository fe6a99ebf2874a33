// One run a side (or one against a few) against a calibration of the same
// boot and settings: first whether the calibration describes the compared
// runs at all (their spread within a run and within a session against its
// own), then the rank of their difference among the calibration's own run
// differences (stats/reference_test.h). No session is left out: a
// session far off its run's others makes the runs' within-run spread
// disagree with the calibration's, and the comparison is then not testable.
#include <boost/math/distributions/fisher_f.hpp>
#include <cmath>
#include <fmt/format.h>
#include <memory>

#include "stats/calibration.h"
#include "stats/reference_test.h"
#include "stats/summary.h"
#include "suite/compare_side.h"

namespace eb::suite::detail {

namespace {

// The pooled variance of the compared runs' session log medians about their
// run's mean, and its df (sessions less runs).
std::pair<double, double> within_runs(const SideData& a, const SideData& b) {
    double ss = 0, df = 0;
    for (const auto* d : {&a, &b})
        for (const auto& r : d->runs) {
            if (r.session_logs.size() < 2) continue;
            double m = stats::mean(r.session_logs);
            for (double x : r.session_logs) ss += (x - m) * (x - m);
            df += double(r.session_logs.size() - 1);
        }
    return {df > 0 ? ss / df : 0, df};
}

// "their X Y% WHERE, the calibration's Z% (F test)" when `runs` is wider
// than `cal` at kConsistencyAlpha, each df times `efficiency`; else empty.
std::string wider(const char* what, const char* where, stats::Component runs, stats::Component cal,
                  double efficiency) {
    if (!(runs.df > 0) || !(cal.df > 0)) return "";
    if (!(cal.var > 0)) return runs.var > 0 ? fmt::format("the calibration's {} {} not at all", what, where) : "";
    double f = runs.var / cal.var;
    boost::math::fisher_f_distribution<double> fd(efficiency * runs.df, efficiency * cal.df);
    double p = boost::math::cdf(boost::math::complement(fd, f));
    if (p >= kConsistencyAlpha) return "";
    return fmt::format("their {} {:.3f}% {}, the calibration's {:.3f}% (F = {:.2f} on {:.3g} and {:.3g} df, p = {:.2g} "
                       "< {:g})", what, std::sqrt(runs.var) * 100, where, std::sqrt(cal.var) * 100, f,
                       efficiency * runs.df, efficiency * cal.df, p, kConsistencyAlpha);
}

// Why the calibration does not describe these runs, or empty. A run with
// other sessions than the calibration's holds another share of the noise
// below; a within-run spread the calibration's does not cover (one-sided F
// test at kConsistencyAlpha: a smaller one only makes the test conservative)
// means the conditions moved, and so may the run-to-run spread.
std::string inconsistency(const SideData& a, const SideData& b, const CalibratedSpread& cal) {
    const auto& l = cal.levels;
    for (const auto* d : {&a, &b})
        for (const auto& r : d->runs)
            if (!r.session_logs.empty() && std::fabs(1 / double(r.session_logs.size()) - l.inv_sessions) > 1e-9)
                return fmt::format("a compared run holds {} usable sessions, the calibration's runs {:.3g}",
                                   r.session_logs.size(), 1 / l.inv_sessions);
    auto [var, df] = within_runs(a, b);
    if (!(df > 0)) return "the runs hold one session each: nothing to check the calibration against (--sessions 2 or more)";
    if (auto why = wider("sessions spread", "within a run", {var, df}, l.session_median, 1); !why.empty()) return why;
    std::vector<std::vector<double>> sessions;
    for (const auto* d : {&a, &b})
        for (const auto& r : d->runs) sessions.insert(sessions.end(), r.repeat_logs.begin(), r.repeat_logs.end());
    return wider("repeats spread", "within a session", stats::robust_repeats(sessions), l.repeat, stats::kMadEfficiency);
}

} // namespace

Effect effect_calibrated(Effect e, const SideData& a, const SideData& b, const CalibratedSpread& cal, double alpha) {
    auto ya = units(a, Unit::Run), yb = units(b, Unit::Run);
    e.calibration = fmt::format("the calibration of {} ({} runs)", cal.date, cal.runs);
    if (auto why = inconsistency(a, b, cal); !why.empty()) {
        e.why = "not testable: the calibration does not describe these runs: " + why;
        e.recalibrate = true;
        return e;
    }
    if (cal.run_means.size() < ya.size() + yb.size()) {
        e.why = fmt::format("not testable: the calibration holds {} runs of this test, fewer than the {} compared",
                            cal.run_means.size(), ya.size() + yb.size());
        e.runs_needed = stats::runs_needed(alpha, ya.size(), yb.size());
        return e;
    }
    auto ref = std::make_shared<stats::Reference>(stats::make_reference(cal.run_means, ya.size(), yb.size()));
    double obs = stats::mean(yb) - stats::mean(ya);
    e.method = fmt::format("rank among the calibration's {} run differences", ref->abs_desc.size());
    e.ratio = std::exp(obs);
    e.log_estimate = obs;
    e.p = stats::reference_p(*ref, obs, alpha);  // at the family's level once it is known (adjust)
    auto ci = stats::reference_ci(*ref, obs, alpha);
    e.ratio_ci = {std::exp(ci.lo), std::exp(ci.hi)};
    e.df = e.detect_df = double(cal.run_means.size() - 1);
    e.reference = std::move(ref);
    e.verdict = Verdict::NoDifference;
    return e;
}

} // namespace eb::suite::detail
