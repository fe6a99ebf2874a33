#include "suite/compare_side.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "stats/ab.h"
#include "stats/nested.h"
#include "stats/summary.h"

namespace eb::suite::detail {

namespace {

void add(SideData& d, const TestResult* t, const RunReport& rep) {
    d.runs.push_back({rep.provenance.boot_id, rep.provenance.module_load ? rep.provenance.module_load->id : "", {}, {}});
    if (!t) return;
    if (!d.seen || severity(t->status) > severity(d.status)) {
        d.status = t->status;
        d.detail = t->detail;
    }
    d.seen = true;
    for (const auto& w : t->warnings)
        if (knob_not_applied(w) && std::find(d.knobs_not_applied.begin(), d.knobs_not_applied.end(), w) ==
                                       d.knobs_not_applied.end())
            d.knobs_not_applied.push_back(w);
    d.imported = d.imported || rep.provenance.imported.has_value();
    auto& run = d.runs.back();
    for (size_t i = 0; i < t->sessions.size(); ++i) {
        const auto& s = t->sessions[i];
        if (s.samples.empty()) continue;
        double m = stats::median(s.samples);
        if (!(m > 0)) {  // no log of a non-positive cost: counted and named, never silently gone
            d.dropped.push_back(fmt::format("run {} session {}", d.runs.size(), i + 1));
            continue;
        }
        std::vector<double> logs;
        for (double x : s.samples)
            if (x > 0) logs.push_back(std::log(x));
        run.session_logs.push_back(std::log(m));
        run.repeat_logs.push_back(std::move(logs));
        if (s.iterations) d.batch_sizes.push_back(s.iterations);  // 0: unknown (an imported run)
    }
}

// Runs grouped by boot id (by load id, at the load level), in order of first
// appearance; runs without an id share one group.
std::vector<std::vector<const RunData*>> by_group(const SideData& d, Unit u) {
    std::vector<std::string> ids;
    std::vector<std::vector<const RunData*>> out;
    for (const auto& r : d.runs) {
        if (r.session_logs.empty()) continue;
        const std::string& key = u == Unit::Load ? r.load : r.boot;
        auto it = std::find(ids.begin(), ids.end(), key);
        if (it == ids.end()) {
            ids.push_back(key);
            out.emplace_back();
            it = ids.end() - 1;
        }
        out[size_t(it - ids.begin())].push_back(&r);
    }
    return out;
}

// The side as a nest: boots (loads) > runs > sessions > repeat logs.
stats::Nest nest(const SideData& d, Unit u) {
    stats::Nest root;
    for (const auto& boot : by_group(d, u)) {
        stats::Nest b;
        for (const RunData* r : boot) {
            stats::Nest run;
            for (const auto& logs : r->repeat_logs) run.children.push_back({logs, {}});
            b.children.push_back(std::move(run));
        }
        root.children.push_back(std::move(b));
    }
    return root;
}

// Units more than kOutlierSigmas robust SDs from the units' median; the
// median of 3 or more and its MAD are not moved by the unit they judge.
std::vector<std::string> outlier_units(const std::vector<double>& y, Unit u) {
    std::vector<std::string> out;
    if (y.size() < 3) return out;
    double med = stats::median(y);
    std::vector<double> dev;
    for (double v : y) dev.push_back(std::fabs(v - med));
    double sigma = 1.4826 * stats::median(dev);
    if (!(sigma > 0)) return out;
    for (size_t i = 0; i < y.size(); ++i)
        if (double z = std::fabs(y[i] - med) / sigma; z > kOutlierSigmas)
            out.push_back(fmt::format("{} {}: {:+.2f}% from the median of the {}s ({:.1f} robust SDs)", unit_name(u),
                                      i + 1, (std::exp(y[i] - med) - 1) * 100, unit_name(u), z));
    return out;
}

} // namespace

Collected collect(const std::vector<const std::vector<RunReport>*>& sides) {
    Collected c;
    for (const auto* side : sides)
        for (const auto& rep : *side)
            for (const auto& t : rep.results)
                if (std::find(c.order.begin(), c.order.end(), t.name) == c.order.end()) c.order.push_back(t.name);
    for (size_t i = 0; i < c.order.size(); ++i) {
        const auto& name = c.order[i];
        auto& v = c.by_test.emplace_back(sides.size());
        for (size_t k = 0; k < sides.size(); ++k)
            for (const auto& rep : *sides[k]) {
                // Runs of one suite list their tests in one order: look there first.
                auto it = i < rep.results.size() && rep.results[i].name == name
                              ? rep.results.begin() + std::ptrdiff_t(i)
                              : std::find_if(rep.results.begin(), rep.results.end(),
                                             [&](const auto& t) { return t.name == name; });
                add(v[k], it == rep.results.end() ? nullptr : &*it, rep);
            }
    }
    return c;
}

Collected collect(const std::vector<std::vector<RunReport>>& sides) {
    std::vector<const std::vector<RunReport>*> p;
    for (const auto& s : sides) p.push_back(&s);
    return collect(p);
}

std::vector<double> units(const SideData& d, Unit u) {
    std::vector<double> out;
    if (u == Unit::Boot || u == Unit::Load) {
        for (const auto& boot : by_group(d, u)) {
            std::vector<double> means;
            for (const RunData* r : boot) means.push_back(stats::mean(r->session_logs));
            out.push_back(stats::mean(means));
        }
        return out;
    }
    for (const auto& r : d.runs)
        if (!r.session_logs.empty()) out.push_back(stats::mean(r.session_logs));
    return out;
}

SideSummary summarize(const std::string& label, const SideData& d, Unit u) {
    SideSummary s;
    s.label = label;
    s.status = d.seen ? status_name(d.status) : "not run";
    s.detail = d.seen ? d.detail : "this configuration has no result for the test";
    s.dropped = d.dropped;
    s.imported = d.imported;
    std::vector<double> sizes;
    for (const auto& r : d.runs) {
        s.sessions += r.session_logs.size();
        s.runs += !r.session_logs.empty();
        for (const auto& x : r.repeat_logs) sizes.push_back(double(x.size()));
    }
    auto y = units(d, u);
    for (double v : y) s.unit_medians.push_back(std::exp(v));
    if (!y.empty()) s.center = std::exp(stats::mean(y));
    s.outliers = outlier_units(y, u);
    if (y.size() >= 2) {
        auto t = stats::one_sample_t(y);
        s.center_ci = {std::exp(t.ci.lo), std::exp(t.ci.hi)};
    }
    auto sd = stats::nested_sd(nest(d, u));  // [repeats, sessions, runs, boots or loads]
    sd.resize(4, kNaN);
    s.within_sd = sd[0];
    s.between_session_sd = sd[1];
    s.between_run_sd = sd[2];
    (u == Unit::Load ? s.between_load_sd : s.between_boot_sd) = sd[3];
    for (const auto& boot : by_group(d, Unit::Boot)) s.boots += !boot.front()->boot.empty();
    if (u == Unit::Load)
        for (const auto& load : by_group(d, u)) s.loads += !load.front()->load.empty();
    if (!sizes.empty()) s.repeats = size_t(stats::median(sizes));
    s.batch_sizes = d.batch_sizes;
    std::sort(s.batch_sizes.begin(), s.batch_sizes.end());
    s.batch_sizes.erase(std::unique(s.batch_sizes.begin(), s.batch_sizes.end()), s.batch_sizes.end());
    return s;
}

std::string unusable(const SideSummary& s, const SideData& d) {
    if (!d.seen || is_failure(d.status) || d.status == Status::Skipped || d.status == Status::Interrupted)
        return fmt::format("under '{}' the test {}{}{}", s.label,
                           d.seen ? fmt::format("ended {}", s.status) : std::string("did not run"),
                           s.detail.empty() ? "" : ": ", s.detail);
    if (!d.knobs_not_applied.empty())
        return fmt::format("under '{}' {}", s.label, fmt::join(d.knobs_not_applied, "; "));
    if (s.unit_medians.empty())
        return fmt::format("no usable samples under '{}'{}", s.label,
                           d.dropped.empty() ? "" : fmt::format(" ({} sessions with a median that is not positive)",
                                                                d.dropped.size()));
    return "";
}

} // namespace eb::suite::detail
