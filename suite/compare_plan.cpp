// What a calibration is for, now that it gives no verdict: the plan. For each
// test of a saved comparison with a calibration of the same host, kernel,
// backend, CPU and settings, the least-cost saved runs a side (Kalibera and
// Jones's allocation, on the runs' own spread: runs - 1 df) and the
// interleaved rounds that reach the target at the family's first Holm level,
// each with what it would detect. Pure.
#include <cmath>
#include <fmt/format.h>

#include "suite/compare_review.h"

namespace eb::suite {

namespace {

std::string age_text(double s) {
    if (s < 0) return "of unknown age";
    if (s < 120) return fmt::format("{:.0f} s old", s);
    if (s < 7200) return fmt::format("{:.0f} min old", s / 60);
    if (s < 2 * 86400) return fmt::format("{:.1f} h old", s / 3600);
    return fmt::format("{:.0f} days old", s / 86400);
}

// Which calibration, said as the user can check it.
std::string describe(const CalibratedSpread& c) {
    return fmt::format("the calibration of {} (id {}; host {}, kernel {}, {}; settings '{}'; {} runs x {} sessions x "
                       "{} repeats; {}, {})", c.date, c.id, c.identity.hostname, c.identity.kernel_release,
                       c.identity.backend, c.identity.settings, c.runs, c.sessions, c.repeats, age_text(c.age_s),
                       c.same_boot ? "this boot" : "another boot");
}

} // namespace

void plan_from(ComparisonReport& out, const Calibrations& cal, double target) {
    size_t m = 0;
    for (const auto& t : out.tests) m += t.test != "baseline";
    double level = out.alpha / double(std::max<size_t>(1, m));
    for (const auto& t : out.tests) {
        auto c = cal.find(t.test);
        if (c == cal.end() || t.test == "baseline") continue;
        Plan p{t.test, describe(c->second), target, level, stats::allocate(c->second.levels, c->second.costs, target,
                                                                            level), 0, kNaN};
        auto r = stats::plan_rounds(c->second.levels, target, level);
        p.rounds = r.rounds;
        p.rounds_detectable = r.detectable;
        out.plans.push_back(std::move(p));
    }
}

std::string plan_line(const ComparisonReport& out, const Plan& p) {
    std::string runs = p.runs.reachable
                           ? fmt::format("{} runs x {} sessions x {} repeats a side (detects {:.2f}%, about {:.0f} s a "
                                         "side)", p.runs.runs, p.runs.sessions, p.runs.repeats, p.runs.detectable * 100,
                                         p.runs.cost_s)
                           : fmt::format("out of reach in saved runs ({} runs x {} sessions x {} repeats a side still "
                                         "detect {:.2f}%)", p.runs.runs, p.runs.sessions, p.runs.repeats,
                                         p.runs.detectable * 100);
    std::string rounds = p.rounds ? fmt::format("exitbench compare {} --a 'OPTIONS' --b 'OPTIONS' --rounds {} (detects "
                                                "{:.2f}%)", p.test, p.rounds, p.rounds_detectable * 100)
                                  : "more than 1000 interleaved rounds";
    return fmt::format("{}: for a detectable {:g}% at alpha {:.3g} ({:g} over {:.0f} test(s), Holm's first step), {} "
                       "recommends {}, run interleaved in time and compared as A1 A2 ... --vs B1 B2 ...; or, where A "
                       "and B are options of one process, the live compare: {}", p.test, p.target * 100, p.level,
                       out.alpha, out.alpha / p.level, p.calibration, runs, rounds);
}

} // namespace eb::suite
