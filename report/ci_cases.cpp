#include "report/ci_cases.h"

#include <algorithm>

#include "report/grids.h"

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
    if (!cases.empty() && std::all_of(cases.begin(), cases.end(), is(Outcome::Skip))) return Outcome::Skip;
    return Outcome::Pass;
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
        if (!t.exits.note.empty() && suite::measured(t))
            c.reason += (c.reason.empty() ? "" : "\n") + t.exits.note;
        for (const auto& w : t.warnings) c.reason += (c.reason.empty() ? "" : "\n") + w;
        out.groups[0].cases.push_back(std::move(c));
    }
    if (r.interrupted) out.notes.emplace_back("interrupted: later tests did not run");
    return out;
}

CiReport ci_report(const Comparison& c) {
    CiReport out{"exitbench compare", c.header, compare_notes(c), {}, true, {}, {}};
    Grid g = compare_grid(c);
    size_t row = 0;
    for (const auto& t : c.report.tests) {
        CiGroup group{t.test, {}};
        for (const auto& k : t.configs) {
            auto figs = figures(g, g.rows[row++], {"test", "config", "status"});
            if (k.unit_medians.empty())  // nothing measured: the grid's 0 is no figure
                std::erase_if(figs, [](const auto& f) { return f.first == "geomean_cycles"; });
            group.cases.push_back({k.label, outcome_of(k.status), k.status, k.detail, std::move(figs)});
        }
        out.groups.push_back(std::move(group));
    }
    return out;
}

} // namespace eb::report
