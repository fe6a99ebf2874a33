#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "report/grids.h"
#include "stats/inference.h"

namespace eb::report {

namespace {

std::string num(double x, int digits) { return std::isfinite(x) ? fmt::format("{:.{}f}", x, digits) : ""; }
std::string pct_change(double ratio) { return std::isfinite(ratio) ? fmt::format("{:+.2f}", (ratio - 1) * 100) : ""; }

// Each column once: its key (CSV, markdown, text, metrics), its title for a
// person (the HTML page), and whether it is a number.
struct Column {
    const char* key;
    const char* title;
    bool numeric;
};
Grid with_columns(std::vector<Column> cols) {
    Grid g;
    for (auto [key, title, numeric] : cols) {
        g.columns.emplace_back(key);
        g.titles.emplace_back(title);
        g.numeric.push_back(numeric);
    }
    return g;
}

std::vector<std::string> run_row(const suite::RunReport& r, const suite::TestResult& t,
                                 const std::optional<double>& base) {
    std::vector<std::string> row{t.name, suite::status_name(t.status)};
    auto hl = suite::headline(t);
    if (hl) {
        double net = t.name == "baseline" || !base ? NAN : hl->cycles - *base;
        row.insert(row.end(), {num(hl->cycles, 1), num(hl->ci.lo, 1), num(hl->ci.hi, 1),
                               hl->between_sessions ? "sessions" : "repeats", num(hl->cycles / r.host.tsc_mhz * 1e3, 2),
                               num(net, 1), num(hl->within_cv * 100, 2),
                               hl->between_sessions ? num(hl->between_cv * 100, 2) : "",
                               std::to_string(hl->sessions), std::to_string(suite::all_repeats(t).size()),
                               std::to_string(t.iterations)});
    } else {
        row.resize(row.size() + 11);
    }
    row.push_back(t.exits.kind);
    row.push_back(fmt::format("{:g}", t.exits.expected));
    row.push_back(t.exits.measured ? num(*t.exits.measured, 3) : "");
    auto net = net_per_exit(r, t);
    if (!net.empty()) {
        std::vector<double> qs{0.5, 0.99};
        auto p = stats::percentiles(net, qs);
        row.insert(row.end(), {num(p[0], 0), num(p[1], 0)});
    } else {
        row.insert(row.end(), {"", ""});
    }
    row.push_back(t.detail);
    return row;
}

} // namespace

std::vector<double> net_per_exit(const suite::RunReport& r, const suite::TestResult& t) {
    if (t.per_exit_cycles.empty()) return {};
    auto overhead = suite::per_exit_overhead(r);
    double off = overhead && t.name != "baseline" ? *overhead : 0;
    std::vector<double> net;
    net.reserve(t.per_exit_cycles.size());
    for (double x : t.per_exit_cycles) net.push_back(std::max(x - off, 1.0));
    return net;
}

Grid run_grid(const suite::RunReport& r) {
    Grid g = with_columns({{"test", "test", false}, {"status", "status", false}, {"cycles_per_iter", "cycles/iter", true}, {"ci95_lo", "95% CI low", true},
                           {"ci95_hi", "95% CI high", true}, {"interval_from", "interval from", false}, {"ns_per_iter", "ns/iter", true},
                           {"minus_baseline", "minus baseline (cycles)", true}, {"cv_within_pct", "spread within (CV %)", true}, {"cv_between_pct", "spread between sessions (CV %)", true},
                           {"sessions", "sessions", true}, {"repeats", "repeats", true}, {"iterations", "iterations/batch", true}, {"exit_kind", "exit", false},
                           {"exits_expected", "exits expected/iter", true}, {"exits_measured", "exits measured/iter", true}, {"per_exit_p50", "per exit p50 (cycles)", true},
                           {"per_exit_p99", "per exit p99 (cycles)", true}, {"detail", "detail", false}});
    auto base = suite::baseline_cycles(r);
    for (const auto& t : r.results) g.rows.push_back(run_row(r, t, base));
    return g;
}

Grid compare_grid(const Comparison& c) {
    Grid g = with_columns({{"test", "test", false}, {"config", "configuration", false}, {"role", "role", false}, {"units", "units", true}, {"sessions", "sessions", true},
                           {"geomean_cycles", "cycles/iter (geomean)", true}, {"ci95_lo", "95% CI low", true}, {"ci95_hi", "95% CI high", true}, {"change_pct", "change %", true},
                           {"change_lo_pct", "change 95% CI low %", true}, {"change_hi_pct", "change 95% CI high %", true}, {"p", "p", true}, {"p_holm", "Holm p", true}, {"verdict", "verdict", false},
                           {"detectable_pct", "detectable change %", true}, {"status", "status", false}});
    for (const auto& t : c.report.tests)
        for (size_t i = 0; i < t.configs.size(); ++i) {
            const auto& k = t.configs[i];
            std::string role = t.test == "baseline" ? "control" : i == 0 ? "reference" : "vs " + t.configs[0].label;
            // A configuration that did not run has no figure: an empty cell, never a 0.0 a reader would chart.
            bool ran = !k.unit_medians.empty();
            std::vector<std::string> row{t.test, k.label, role, std::to_string(k.unit_medians.size()),
                                         std::to_string(k.sessions), ran ? num(k.center, 1) : "",
                                         ran ? num(k.center_ci.lo, 1) : "", ran ? num(k.center_ci.hi, 1) : ""};
            if (i == 0 || i > t.vs_first.size()) {
                row.resize(row.size() + 7);
            } else {
                const auto& e = t.vs_first[i - 1];
                row.insert(row.end(), {pct_change(e.ratio), pct_change(e.ratio_ci.lo), pct_change(e.ratio_ci.hi),
                                       std::isfinite(e.p) ? fmt::format("{:.3g}", e.p) : "",
                                       std::isfinite(e.p_holm) ? fmt::format("{:.3g}", e.p_holm) : "",
                                       suite::verdict_name(e.verdict), num(e.detectable * 100, 2)});
            }
            row.push_back(k.status);
            g.rows.push_back(std::move(row));
        }
    return g;
}

Grid profile_grid(const profile::Report& p) {
    Grid g = with_columns({{"reason", "exit reason", false}, {"tracepoint", "event", false}, {"count", "exits", true}, {"samples_pct", "exits %", true},
                           {"time_pct", "time %", true}, {"min_us", "min (µs)", true}, {"p50_us", "p50 (µs)", true}, {"p99_us", "p99 (µs)", true},
                           {"max_us", "max (µs)", true}, {"mean_us", "mean (µs)", true}, {"rel_sem_pct", "± (rel. SE %)", true}});
    auto share = [](double part, uint64_t whole) { return whole ? part / double(whole) * 100 : 0.0; };
    // An imported perf table has no durations: its percentiles are missing, not 0.
    auto pct = [&](double ns) { return p.imported.empty() ? num(ns / 1e3, 3) : std::string(); };
    for (const auto& row : p.rows) {
        std::vector<std::string> cells{row.name, std::string(profile::event_type_name(row.type)),
                                       std::to_string(row.count), num(share(double(row.count), p.total_samples), 2)};
        if (row.timed && p.degraded.empty())
            cells.insert(cells.end(), {num(share(double(row.total_ns), p.total_time_ns), 2),
                                       num(double(row.min_ns) / 1e3, 3), pct(row.p50_ns),
                                       pct(row.p99_ns), num(double(row.max_ns) / 1e3, 3),
                                       num(row.mean_ns / 1e3, 3), num(row.rel_sem_pct(), 2)});
        else
            cells.resize(cells.size() + 7);
        g.rows.push_back(std::move(cells));
    }
    return g;
}

Grid merge_grid(const Merged& m) {
    Grid g = with_columns({{"cpu_model", "CPU model", false}, {"microcode", "microcode", false}, {"kernel", "kernel", false}, {"backend", "backend", false},
                           {"test", "test", false}, {"hosts", "hosts", true}, {"median_cycles", "median cycles/iter", true}, {"min_cycles", "min cycles/iter", true},
                           {"max_cycles", "max cycles/iter", true}, {"spread_pct", "spread %", true}, {"outlier_hosts", "outlier hosts", false}});
    for (const auto& grp : m.groups)
        for (const auto& t : grp.tests) {
            auto odd = t.outlier_notes();
            g.rows.push_back({grp.cpu_model, grp.microcode, grp.kernel, grp.backend, t.test,
                              std::to_string(t.hosts.size()), num(t.median, 1), num(t.min, 1), num(t.max, 1),
                              num(t.spread_pct, 2),
                              t.hosts.size() < 3 ? "" : odd.empty() ? "none" : fmt::format("{}", fmt::join(odd, "; "))});
        }
    return g;
}

std::vector<std::string> merge_lines(const Merged& m) {
    std::vector<std::string> out{fmt::format("{} group(s) of hosts; {}", m.groups.size(), outlier_rule())};
    out.insert(out.end(), m.warnings.begin(), m.warnings.end());
    for (const auto& g : m.groups) out.push_back(group_title(g));
    return out;
}

std::vector<std::string> run_notes(const suite::RunReport& r) {
    std::vector<std::string> out;
    for (const auto& t : r.results) {
        if (!t.detail.empty() && t.status != suite::Status::NoExit)
            out.push_back(fmt::format("{} ({}): {}", t.name, suite::status_name(t.status), t.detail));
        if (!t.exits.note.empty() && suite::measured(t)) out.push_back(fmt::format("{}: {}", t.name, t.exits.note));
    }
    if (r.interrupted) out.emplace_back("interrupted: later tests did not run");
    return out;
}

std::vector<std::string> compare_notes(const Comparison& c) {
    std::vector<std::string> out;
    for (const auto& w : c.report.warnings) out.push_back("warning: " + w);
    for (const auto& a : c.report.advice) out.push_back("advice: " + a);
    for (const auto& t : c.report.tests)
        for (size_t i = 0; i < t.vs_first.size(); ++i)
            if (!t.vs_first[i].why.empty())
                out.push_back(fmt::format("{} {}: not testable: {}", t.test, t.configs[i + 1].label, t.vs_first[i].why));
    return out;
}

std::vector<std::string> profile_lines(const profile::Report& p) {
    std::vector<std::string> out{fmt::format("exitbench profile report: {} events{}, {} ISA, backend {}",
                                             profile::mode_name(p.mode),
                                             p.vcpu ? fmt::format(" of vCPU {}", *p.vcpu) : "", p.isa,
                                             p.backend.empty() ? "unknown" : p.backend)};
    out.push_back(p.degraded.empty()
                      ? fmt::format("{} samples, {:.2f} us handled in total", p.total_samples, double(p.total_time_ns) / 1e3)
                      : fmt::format("{} events counted, no latency: {}", p.total_samples, p.degraded));
    if (p.lost_events) out.push_back(fmt::format("lost events: {}", p.lost_events));
    if (p.dropped.total()) out.push_back(fmt::format("dropped pairs: {}", p.dropped.total()));
    return out;
}

} // namespace eb::report
