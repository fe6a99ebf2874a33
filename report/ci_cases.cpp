#include "report/ci_cases.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/grids.h"
#include "suite/registry.h"

namespace eb::report {

Outcome outcome_of(const std::string& status_name) {
    auto s = suite::status_from_name(status_name);
    if (!s) return status_name == "not run" ? Outcome::Skip : Outcome::Fail;
    if (*s == suite::Status::Skipped) return Outcome::Skip;
    return suite::is_failure(*s) || *s == suite::Status::Interrupted ? Outcome::Fail : Outcome::Pass;
}

Outcome CiGroup::outcome() const {
    auto is = [&](Outcome o) { return [o](const CiCase& c) { return c.outcome == o; }; };
    if (std::any_of(cases.begin(), cases.end(), is(Outcome::Fail))) return Outcome::Fail;
    auto from = cases.begin() + (gated && cases.size() > 1 ? 1 : 0);
    if (!cases.empty() && std::all_of(from, cases.end(), is(Outcome::Skip))) return Outcome::Skip;
    return Outcome::Pass;
}

std::string CiGroup::skip_reason() const {
    return gated ? "not testable against --fail-if-slower" : "every configuration skipped";
}

namespace {

// A grid row's non-empty cells, leaving out the columns the case carries itself.
std::vector<std::pair<std::string, std::string>> figures(const Grid& g, const std::vector<std::string>& row,
                                                         std::initializer_list<std::string_view> skip) {
    std::vector<std::pair<std::string, std::string>> out;
    for (size_t i = 0; i < g.columns.size() && i < row.size(); ++i)
        if (!row[i].empty() && std::find(skip.begin(), skip.end(), g.columns[i]) == skip.end())
            out.emplace_back(g.columns[i], row[i]);
    return out;
}

} // namespace

CiReport ci_report(const suite::RunReport& r) {
    CiReport out{"exitbench run", run_header_lines(r), {}, {CiGroup{}}, false,
                 r.provenance.timestamp_utc, r.provenance.hostname};
    Grid g = run_grid(r);
    for (size_t i = 0; i < r.results.size(); ++i) {
        const auto& t = r.results[i];
        CiCase c{t.name, outcome_of(suite::status_name(t.status)), suite::status_name(t.status), t.detail,
                 figures(g, g.rows[i], {"test", "status", "detail"}), t.wall_seconds};
        if (auto known = suite::expected_failure(r, t)) {
            c.outcome = Outcome::XFail;
            c.directive_text = *known;
        } else if (t.status == suite::Status::Hung) {
            c.directive_text = fmt::format("no guest progress for {:g} s", r.settings.watchdog_s);
        }
        if (!t.exits.note.empty() && suite::measured(t))
            c.reason += (c.reason.empty() ? "" : "\n") + t.exits.note;
        for (const auto& w : t.warnings) c.reason += (c.reason.empty() ? "" : "\n") + w;
        out.groups[0].cases.push_back(std::move(c));
    }
    if (r.interrupted) out.notes.emplace_back("interrupted: later tests did not run");
    return out;
}

namespace {

// --fail-if-slower's decision on one configuration: a regression fails it, a
// comparison the gate could not test is a skip, each saying why.
void apply_gate(CiCase& c, const GateMark& m) {
    if (m.fails) c.outcome = Outcome::Fail, c.status = "regression";
    else if (!m.slower && c.outcome != Outcome::Fail) c.outcome = Outcome::Skip, c.status = "not testable";
    c.reason = m.line + (c.reason.empty() ? "" : "\n" + c.reason);
}

} // namespace

CiReport ci_report(const Comparison& c) {
    CiReport out{"exitbench compare", c.header, compare_notes(c), {}, true, {}, {}};
    if (c.gate) out.notes.push_back(c.gate->summary());
    Grid g = compare_grid(c);
    size_t row = 0;
    for (const auto& t : c.report.tests) {
        CiGroup group{t.test, {}, c.gate && t.test != "baseline"};
        for (const auto& k : t.configs) {
            auto figs = figures(g, g.rows[row++], {"test", "config", "status"});
            if (k.unit_medians.empty())  // nothing measured: the grid's 0 is no figure
                std::erase_if(figs, [](const auto& f) { return f.first == "geomean_cycles"; });
            group.cases.push_back({k.label, outcome_of(k.status), k.status, k.detail, std::move(figs)});
            const GateMark* m = c.gate && &k != &t.configs.front() ? c.gate->find(t.test, k.label) : nullptr;
            if (m) apply_gate(group.cases.back(), *m);
        }
        out.groups.push_back(std::move(group));
    }
    return out;
}

} // namespace eb::report
