#include "suite/compare.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>

#include "stats/ab.h"
#include "stats/family.h"
#include "stats/summary.h"
#include "suite/compare_review.h"
#include "suite/compare_side.h"
#include "sys/error.h"

namespace eb::suite {

const char* verdict_name(Verdict v) {
    switch (v) {
    case Verdict::Faster: return "faster";
    case Verdict::Slower: return "slower";
    case Verdict::NoDifference: return "no detectable difference";
    case Verdict::NotTestable: break;
    }
    return "not testable";
}

const char* unit_name(Unit u) {
    switch (u) {
    case Unit::Run: return "run";
    case Unit::Load: return "load";
    case Unit::Boot: return "boot";
    case Unit::Round: break;
    }
    return "round";
}

size_t min_units(Unit u) { return u == Unit::Load ? 3 : 2; }

namespace {

using detail::SideData;

// The t test's figures; the verdict waits for the family (see adjust()).
void fill(Effect& e, const stats::TTest& t) {
    e.ratio = std::exp(t.estimate);
    e.ratio_ci = {std::exp(t.ci.lo), std::exp(t.ci.hi)};
    e.p = t.p;
    e.df = t.df;
    e.log_estimate = t.estimate;
    e.se = t.se;
    e.verdict = Verdict::NoDifference;
}

// One unit a side at the level that differs: the observed shift, next to the
// spread one unit does show (the runs inside a boot, else the sessions inside
// a run), which says nothing of drift between units of this level.
std::string one_unit_why(const Effect& e, const SideSummary& sa, const SideSummary& sb, Unit u) {
    auto widest = [](double x, double y) { return std::max(std::isnan(x) ? 0 : x, std::isnan(y) ? 0 : y); };
    double runs = u == Unit::Boot || u == Unit::Load ? widest(sa.between_run_sd, sb.between_run_sd) : 0;
    double inside = runs > 0 ? runs : widest(sa.between_session_sd, sb.between_session_sd);
    std::string spread = inside > 0 ? fmt::format("; the {} inside one {} spread {:.2f}%, which does not measure "
                                                  "drift between {}s", runs > 0 ? "runs" : "sessions",
                                                  runs > 0 ? unit_name(u) : "run", inside * 100, unit_name(u))
                                    : "";
    std::string fewest = min_units(u) > 2 ? fmt::format("; a verdict needs {} {}s a side", min_units(u), unit_name(u))
                                          : "";
    return fmt::format("not testable at the {0} level ({1} vs {2} {0}{3}): observed {4}{5}{6}", unit_name(u),
                       e.units_a, e.units_b, e.units_a + e.units_b == 2 ? "" : "s", pct_change(e.ratio), spread,
                       fewest);
}

// Zero spread among the units is no certainty: the figures' resolution is
// the floor, and no interval or p-value follows from it.
bool zero_spread(Effect& e, const stats::TTest& t, Unit u) {
    if (t.se > 0) return false;
    e.why = fmt::format("every {} agrees exactly on each side (zero spread at the {} level): no spread to test "
                        "against; observed {}", unit_name(u), unit_name(u), pct_change(std::exp(t.estimate)));
    return true;
}

Effect effect_saved(const SideData& a, const SideData& b, const SideSummary& sa, const SideSummary& sb, Unit u,
                    double alpha) {
    Effect e;
    auto ya = detail::units(a, u), yb = detail::units(b, u);
    e.units_a = ya.size();
    e.units_b = yb.size();
    e.method = fmt::format("Welch t on log {} means", unit_name(u));
    for (const auto* s : {&sa, &sb})
        if (auto why = detail::unusable(*s, s == &sa ? a : b); !why.empty()) {
            e.why = why;
            return e;
        }
    e.ratio = std::exp(stats::mean(yb) - stats::mean(ya));
    if (sa.imported != sb.imported) {  // imported against imported is like against like
        e.why = fmt::format("descriptive only: '{}' holds an imported kvm-unit-tests figure (one batch mean of "
                            "another harness), not units of this one", sa.imported ? sa.label : sb.label);
        return e;
    }
    if (ya.size() < min_units(u) || yb.size() < min_units(u)) {  // one offset a side is no spread, calibrated or not
        e.why = one_unit_why(e, sa, sb, u);
        return e;
    }
    auto t = stats::welch(ya, yb, alpha);
    if (!zero_spread(e, t, u)) fill(e, t);
    e.detect_df = double(std::min(ya.size(), yb.size()) - 1);
    return e;
}

Effect effect_rounds(const SideData& a, const SideData& b, const SideSummary& sa, const SideSummary& sb,
                     double alpha) {
    Effect e;
    e.method = "paired t on per-round log ratios";
    for (const auto* s : {&sa, &sb})
        if (auto why = detail::unusable(*s, s == &sa ? a : b); !why.empty()) {
            e.why = why;
            return e;
        }
    std::vector<double> d;
    for (size_t r = 0; r < std::min(a.runs.size(), b.runs.size()); ++r)
        if (!a.runs[r].session_logs.empty() && !b.runs[r].session_logs.empty())
            d.push_back(stats::mean(b.runs[r].session_logs) - stats::mean(a.runs[r].session_logs));
    e.units_a = e.units_b = d.size();
    if (d.empty()) {
        e.why = "no round holds both configurations";
        return e;
    }
    e.ratio = std::exp(stats::mean(d));
    if (d.size() < 2) {
        e.why = "not testable: round-to-round variation cannot be estimated from one round";
        return e;
    }
    auto t = stats::one_sample_t(d, alpha);
    if (!zero_spread(e, t, Unit::Round)) fill(e, t);
    e.detect_df = t.df;
    return e;
}

// The family: every testable comparison but the baseline's (a control, read
// on its own). Verdicts use Holm's p; the detectable difference is the one at
// alpha / m, Holm's first step, so it never promises more than the family gives.
void adjust(ComparisonReport& out) {
    std::vector<Effect*> family, control;
    for (auto& t : out.tests)
        for (auto& e : t.vs_first)
            if (e.verdict != Verdict::NotTestable) (t.test == "baseline" ? control : family).push_back(&e);
    out.family = family.size();
    auto apply = [&](const std::vector<Effect*>& set) {
        std::vector<double> p;
        for (auto* e : set) p.push_back(e->p);
        auto holm = stats::holm_adjust(p), q = stats::bh_adjust(p);
        for (size_t i = 0; i < set.size(); ++i) {
            Effect& e = *set[i];
            e.p_holm = holm[i];
            e.q_bh = q[i];
            e.verdict = e.p_holm >= out.alpha ? Verdict::NoDifference : e.ratio < 1 ? Verdict::Faster : Verdict::Slower;
            double level = out.alpha / double(set.size());
            stats::TTest t;
            t.estimate = e.log_estimate;
            t.se = e.se;
            t.df = e.detect_df;
            e.detectable = std::exp(stats::detectable_difference(t, level)) - 1;
        }
    };
    apply(family);
    apply(control);
}

ComparisonReport build(const std::vector<std::string>& labels, const std::vector<std::vector<RunReport>>& sides,
                       Unit unit, double alpha, const Calibrations& cal = {}, const std::string& options = {},
                       double target = kPlanTarget) {
    if (labels.size() != sides.size() || sides.size() < 2)
        throw InputError("a comparison needs two or more labelled sides");
    ComparisonReport out;
    out.labels = labels;
    out.unit = unit;
    out.alpha = alpha;
    out.run_options = options;
    for (const auto& side : sides) {
        out.side_env.push_back(side.empty() ? decltype(side[0].env){} : side[0].env);
        out.side_execution.push_back(side.empty() ? "host" : execution_of(side[0]));
        if (!side.empty() && out.side_execution.back() == "emulated")
            out.warnings.push_back(fmt::format("'{}': {} ({}; {})", labels[out.side_execution.size() - 1],
                                               kEmulatedNote, backend_label(side[0]), side[0].boot->machine));
    }
    auto c = detail::collect(sides);
    for (size_t i = 0; i < c.order.size(); ++i) {
        const auto& d = c.by_test[i];
        TestComparison tc;
        tc.test = c.order[i];
        for (size_t k = 0; k < d.size(); ++k) tc.configs.push_back(detail::summarize(labels[k], d[k], unit));
        for (size_t k = 1; k < d.size(); ++k)
            tc.vs_first.push_back(unit == Unit::Round
                                      ? effect_rounds(d[0], d[k], tc.configs[0], tc.configs[k], alpha)
                                      : effect_saved(d[0], d[k], tc.configs[0], tc.configs[k], unit, alpha));
        out.tests.push_back(std::move(tc));
        for (size_t k = 0; k < d.size(); ++k)
            for (const auto& w : d[k].knobs_not_applied)
                if (auto line = fmt::format("'{}': {}", labels[k], w);
                    std::find(out.warnings.begin(), out.warnings.end(), line) == out.warnings.end())
                    out.warnings.push_back(line);
    }
    adjust(out);
    plan_from(out, cal, target);
    review(out);
    if (out.tests.empty()) out.warnings.push_back("no test to compare");
    return out;
}

// Each side's distinct keys (boot ids, or load ids), in run order; `known`
// false when a run has none.
std::vector<std::vector<std::string>> keys_of(const std::vector<std::vector<RunReport>>& sides,
                                              std::string (*key)(const RunReport&), bool& known) {
    known = true;
    std::vector<std::vector<std::string>> out;
    for (const auto& side : sides) {
        auto& ids = out.emplace_back();
        for (const auto& r : side) {
            auto k = key(r);
            known = known && !k.empty();
            if (std::find(ids.begin(), ids.end(), k) == ids.end()) ids.push_back(k);
        }
    }
    return out;
}

bool sides_differ(std::vector<std::vector<std::string>> ids) {
    for (auto& v : ids) std::sort(v.begin(), v.end());
    return std::any_of(ids.begin(), ids.end(), [&](const auto& v) { return v != ids[0]; });
}

std::string boot_of(const RunReport& r) { return r.provenance.boot_id; }
std::string load_of(const RunReport& r) { return r.provenance.module_load ? r.provenance.module_load->id : ""; }

// The highest level that differs between the sides: the boot when every run
// has a boot id and the sides' boots are not the same; else the module load
// when every run has a load id and the sides' loads differ; else the run.
void choose_level(ComparisonReport& out, const std::vector<std::vector<RunReport>>& sides) {
    bool known = true, loads_known = true;
    auto boots = keys_of(sides, boot_of, known);
    auto loads = keys_of(sides, load_of, loads_known);
    if (known && sides_differ(boots)) {
        out.unit = Unit::Boot;
        out.boot_ids = boots;
        out.level_why = "the sides come from different boots, so boot-to-boot variation separates them: each boot "
                        "(the mean of its runs) is one unit";
        return;
    }
    std::string boot_unseen = known ? "boot: every run comes from the same boot, so boot-to-boot variation is not in "
                                      "these verdicts"
                                    : "boot: a run has no boot id recorded, so boot-to-boot variation cannot be told "
                                      "apart";
    if (loads_known && sides_differ(loads)) {
        out.unit = Unit::Load;
        out.boot_ids = loads;
        out.level_why = "the sides come from different loads of the module, so load-to-load variation separates "
                        "them: each load (the mean of its runs) is one unit";
        out.unseen.push_back(boot_unseen);
        return;
    }
    out.unit = Unit::Run;
    out.level_why = "the sides are different runs: each run (the mean of its sessions) is one unit; sessions of one "
                    "run share its process, boot and moment, so they are never the units";
    if (loads_known && !sides.empty() && !sides[0].empty())
        out.unseen.push_back("module load: every run comes from the same load of the module, so load-to-load "
                             "variation is not in these verdicts");
    out.unseen.push_back(boot_unseen);
}

} // namespace

std::string pct_change(double ratio) { return fmt::format("{:+.2f}%", (ratio - 1) * 100); }

ComparisonReport compare_saved(const std::vector<std::string>& labels,
                               const std::vector<std::vector<RunReport>>& sides, double alpha,
                               const Calibrations& cal, double target) {
    ComparisonReport probe;
    choose_level(probe, sides);
    bool imported = !sides.empty() && !sides[0].empty() && sides[0][0].provenance.imported.has_value();
    std::string options = sides.empty() || sides[0].empty() || imported ? "" : run_options(sides[0][0].settings);
    auto out = build(labels, sides, probe.unit, alpha, cal, options, target);
    out.level_why = probe.level_why;
    out.unseen = probe.unseen;
    out.boot_ids = probe.boot_ids;
    return out;
}

ComparisonReport compare_rounds(const std::vector<std::string>& labels,
                                const std::vector<std::vector<RunReport>>& rounds, double alpha) {
    auto out = build(labels, rounds, Unit::Round, alpha);
    out.level_why = "interleaved in one process: each round runs every configuration, so the round is the unit and "
                    "drift shared by a round cancels";
    out.unseen.push_back("run and boot: every round ran in this one process and boot, so a change that interacts "
                         "with run-to-run or boot-to-boot conditions is not in these verdicts");
    return out;
}

void mark_not_answerable(ComparisonReport& r, std::vector<std::string> reasons) {
    if (reasons.empty()) return;
    std::string why = fmt::format("not answerable on this host: {}", fmt::join(reasons, "; "));
    for (auto& t : r.tests)
        for (auto& e : t.vs_first) {
            e.verdict = Verdict::NotTestable;
            e.p_holm = e.q_bh = kNaN;
            e.why = why;
        }
    r.family = 0;
    r.not_answerable = std::move(reasons);
}

std::vector<std::string> knob_warnings(const ComparisonReport& r) {
    std::vector<std::string> out;
    for (const auto& w : r.warnings)
        if (w.find(kKnobNotApplied) != std::string::npos) out.push_back(w);
    return out;
}

} // namespace eb::suite
