#include "report/compare.h"

#include <cmath>
#include <vector>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace eb::report {

using nlohmann::json;

namespace {

std::string pct(double ratio) { return fmt::format("{:+.2f}%", (ratio - 1) * 100); }
std::string sd_pct(double sd) { return std::isnan(sd) ? "-" : fmt::format("{:.2f}%", sd * 100); }
// A between-level spread is estimated as what the level adds to the one below
// it, floored at 0: a 0 means "not measurably more than the noise below", not
// "no spread".
std::string between_pct(double sd) { return sd == 0 ? "0 (within the noise below)" : sd_pct(sd); }

// Each level of the nesting once; a level with one group per parent is left
// out (the level above includes it, and says so for boots).
std::string spread_text(const suite::SideSummary& k, suite::Unit unit) {
    std::vector<std::string> parts;
    if (!std::isnan(k.within_sd)) parts.push_back("within a session " + sd_pct(k.within_sd));
    if (!std::isnan(k.between_session_sd))
        parts.push_back("between sessions of a run " + between_pct(k.between_session_sd));
    if (!std::isnan(k.between_run_sd))
        parts.push_back(unit == suite::Unit::Round ? "between rounds " + between_pct(k.between_run_sd)
                                                   : "between runs of a boot " + between_pct(k.between_run_sd));
    if (!std::isnan(k.between_load_sd))
        parts.push_back(fmt::format("between loads of the module {} ({} loads{})", between_pct(k.between_load_sd),
                                    k.loads, std::isnan(k.between_run_sd) ? "; one run each, so it includes "
                                                                            "run-to-run spread"
                                                                          : ""));
    if (!std::isnan(k.between_boot_sd))
        parts.push_back(fmt::format("between boots {} ({} boots{})", between_pct(k.between_boot_sd), k.boots,
                                    std::isnan(k.between_run_sd) ? "; one run each, so it includes run-to-run spread"
                                                                 : ""));
    return parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, ", "));
}

std::string side_line(const suite::SideSummary& k, size_t w, suite::Unit unit) {
    if (k.unit_medians.empty())
        return fmt::format("  {:<{}}  no samples ({}{}{})\n", k.label, w, k.status, k.detail.empty() ? "" : ": ",
                           k.detail);
    std::string ci = std::isnan(k.center_ci.lo) ? "no interval from one unit"
                                                : fmt::format("95% CI [{:.1f}, {:.1f}]", k.center_ci.lo, k.center_ci.hi);
    size_t n = k.unit_medians.size();
    std::string units = fmt::format("{} {}{} ({} session{})", n, suite::unit_name(unit), n == 1 ? "" : "s",
                                    k.sessions, k.sessions == 1 ? "" : "s");
    std::string dropped = k.dropped.empty() ? "" : fmt::format(", {} left out: median not positive", k.dropped.size());
    return fmt::format("  {:<{}}  {:>10.1f} cycles  {}  {} x {} repeats{}  spread: {}  ({})\n", k.label, w, k.center,
                       ci, units, k.repeats, dropped, spread_text(k, unit), k.status);
}

std::string effect_lines(const suite::Effect& e, const std::string& b, const std::string& a, double alpha) {
    if (e.verdict == suite::Verdict::NotTestable) {
        bool says = e.why.starts_with("not testable");
        std::string seen = std::isnan(e.ratio) || e.why.find("observed") != std::string::npos
                               ? "" : fmt::format("observed {}; ", pct(e.ratio));
        return fmt::format("  {} vs {}: {}{}{}\n", b, a, seen, says ? "" : "not testable: ", e.why);
    }
    std::string out = fmt::format("  {} vs {}: {} [{}, {}] ({:g}% CI of the ratio of geometric means, this test "
                                  "alone), p = {:.3g}, Holm p = {:.3g}, BH q = {:.3g} ({}, {} vs {} units, df {:.1f}): "
                                  "{}\n",
                                  b, a, pct(e.ratio), pct(e.ratio_ci.lo), pct(e.ratio_ci.hi), (1 - alpha) * 100, e.p,
                                  e.p_holm, e.q_bh, e.method, e.units_a, e.units_b, e.df, suite::verdict_name(e.verdict));
    out += fmt::format("    detectable with 80% power at this spread, in this family: {:.2f}%\n", e.detectable * 100);
    return out;
}

// What a calibration recommends per test: never a verdict's input.
json plans_json(const suite::ComparisonReport& c) {
    json out = json::array();
    for (const auto& p : c.plans)
        out.push_back({{"test", p.test}, {"calibration", p.calibration}, {"target_relative", p.target},
                       {"alpha", p.level}, {"runs_a_side", p.runs.runs}, {"sessions", p.runs.sessions},
                       {"repeats", p.runs.repeats}, {"runs_detectable_relative", p.runs.detectable},
                       {"runs_cost_s_a_side", p.runs.cost_s}, {"runs_reachable", p.runs.reachable},
                       {"rounds", p.rounds},
                       {"rounds_detectable_relative", p.rounds ? json(p.rounds_detectable) : json(nullptr)}});
    return out;
}

std::string test_block(const suite::TestComparison& t, const suite::ComparisonReport& c) {
    std::string out = "\n" + t.test + (t.test == "baseline" ? "  (negative control: the empty loop should not move)\n" : "\n");
    size_t w = 1;
    for (const auto& k : t.configs) w = std::max(w, k.label.size());
    for (const auto& k : t.configs) {
        out += side_line(k, w, c.unit);
        for (const auto& o : k.outliers)
            out += fmt::format("    outlier {} (kept: the verdict uses every unit; look at it before trusting the "
                               "verdict)\n", o);
    }
    for (size_t i = 0; i < t.vs_first.size(); ++i)
        out += effect_lines(t.vs_first[i], t.configs[i + 1].label, t.configs[0].label, c.alpha);
    return out;
}

json effect_json(const suite::Effect& e, suite::Unit unit) {
    auto num = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
    return {{"verdict", suite::verdict_name(e.verdict)},
            {"ratio", num(e.ratio)},
            {"ratio_ci", {num(e.ratio_ci.lo), num(e.ratio_ci.hi)}},
            {"p", num(e.p)},
            {"p_holm", num(e.p_holm)},
            {"q_bh", num(e.q_bh)},
            {"df", e.df},
            {"detectable_relative", num(e.detectable)},
            {"level", suite::unit_name(unit)},
            {"units", {e.units_a, e.units_b}},
            {"method", e.method},
            {"why_not_testable", e.why}};
}

json side_json(const suite::SideSummary& k) {
    auto num = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
    return {{"label", k.label},
            {"unit_medians_cycles", k.unit_medians},
            {"sessions", k.sessions},
            {"runs", k.runs},
            {"sessions_left_out", k.dropped},
            {"outlier_units", k.outliers},
            {"repeats_per_session", k.repeats},
            {"geometric_mean_cycles", num(k.center)},
            {"ci_95", {num(k.center_ci.lo), num(k.center_ci.hi)}},
            {"sd_log", {{"within_session", num(k.within_sd)},
                        {"between_sessions_of_a_run", num(k.between_session_sd)},
                        {"between_runs_of_a_boot", num(k.between_run_sd)},
                        {"between_loads_of_a_boot", num(k.between_load_sd)},
                        {"between_boots", num(k.between_boot_sd)}}},
            {"imported", k.imported},
            {"boots", k.boots},
            {"loads", k.loads},
            {"batch_sizes", k.batch_sizes},
            {"status", k.status},
            {"detail", k.detail}};
}

std::string family_line(const suite::ComparisonReport& c) {
    if (c.family == 0) return "family: no testable comparison\n";
    return fmt::format("family: {} comparison{} (every test and configuration, the baseline apart); verdicts use "
                       "Holm-adjusted p at alpha {:g}; read one by one at {:g}, {:.1f} of them would look significant "
                       "by chance if nothing changed\n", c.family, c.family == 1 ? "" : "s", c.alpha, c.alpha,
                       double(c.family) * c.alpha);
}

} // namespace

std::string render_comparison(const suite::ComparisonReport& c) {
    std::string out = fmt::format("level of the verdicts: the {} ({}; repeats inside one session are summarised "
                                  "by their median, never pooled)\n", suite::unit_name(c.unit), c.level_why);
    for (const auto& u : c.unseen) out += "not seen by these verdicts: " + u + "\n";
    for (const auto& n : c.not_answerable) out += "not answerable on this host: " + n + "\n";
    out += family_line(c);
    const suite::TestComparison* control = nullptr;
    for (const auto& t : c.tests) {
        if (t.test == "baseline") control = &t;
        else out += test_block(t, c);
    }
    if (control) out += test_block(*control, c);
    if (!c.warnings.empty() || !c.advice.empty()) out += "\n";
    for (const auto& w : c.warnings) out += "warning: " + w + "\n";
    for (const auto& a : c.advice) out += "advice: " + a + "\n";
    return out;
}

json comparison_json(const suite::ComparisonReport& c) {
    json tests = json::array();
    for (const auto& t : c.tests) {
        json cfgs = json::array(), vs = json::array();
        for (const auto& k : t.configs) cfgs.push_back(side_json(k));
        for (const auto& e : t.vs_first) vs.push_back(effect_json(e, c.unit));
        tests.push_back({{"test", t.test}, {"configs", cfgs}, {"vs_first", vs}});
    }
    return {{"schema", "exitbench-compare"}, {"schema_version", kCompareSchemaVersion}, {"labels", c.labels},
            {"unit", suite::unit_name(c.unit)}, {"level", suite::unit_name(c.unit)}, {"level_why", c.level_why},
            {"levels_not_seen", c.unseen}, {"family_size", c.family},
            {"expected_chance_verdicts_unadjusted", double(c.family) * c.alpha}, {"alpha", c.alpha}, {"tests", tests},
            {"warnings", c.warnings}, {"advice", c.advice}, {"boot_ids", c.boot_ids},
            {"not_answerable", c.not_answerable}, {"plans", plans_json(c)}};
}

} // namespace eb::report
