// One self-contained HTML file per result: tables from the subject's Grid,
// plots drawn by the inlined Chart.js from JSON embedded in the page. A
// Content-Security-Policy forbids every request, so nothing leaves the file.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/exporter.h"
#include "report/flame.h"
#include "report/html.h"
#include "report/sha256.h"
#include "report/gate_view.h"
#include "report/host_diff_export.h"
#include "report/grids.h"
#include "stats/inference.h"
#include "stats/summary.h"

namespace eb::report {

namespace {

using nlohmann::json;

std::string esc(std::string_view s) {
    std::string out;
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

// Wide tables (compare has 15 columns) scroll inside their box, not the page.
std::string table(const Grid& g) {
    std::string out = "<div class=wide><table><tr>";
    // A person's title; the key (what CSV and JSON call it) as its tooltip.
    for (size_t i = 0; i < g.columns.size(); ++i)
        out += fmt::format("<th title=\"{}\">{}</th>", esc(g.columns[i]),
                           esc(i < g.titles.size() ? g.titles[i] : g.columns[i]));
    out += "</tr>\n";
    for (const auto& r : g.rows) {
        out += "<tr>";
        for (size_t i = 0; i < r.size(); ++i) {
            // A reason (a hang's RIP dump, a skip's why) stays one line; all of it is the tooltip.
            bool fold = i < g.columns.size() && g.columns[i] == "detail";
            if (fold) {  // a table cell ignores max-width: the block inside it does not
                out += fmt::format("<td><div class=fold title=\"{0}\">{0}</div></td>", esc(r[i]));
                continue;
            }
            out += (i < g.numeric.size() && g.numeric[i] ? "<td class=n>" : "<td>") + esc(r[i]) + "</td>";
        }
        out += "</tr>\n";
    }
    return out + "</table></div>\n";
}

// The columns of `g` named by `keys`, in that order.
Grid only(const Grid& g, const std::vector<std::string>& keys) {
    Grid out;
    std::vector<size_t> at;
    for (const auto& k : keys)
        for (size_t i = 0; i < g.columns.size(); ++i)
            if (g.columns[i] == k) {
                at.push_back(i);
                out.columns.push_back(g.columns[i]);
                out.numeric.push_back(i < g.numeric.size() && g.numeric[i]);
                out.titles.push_back(i < g.titles.size() ? g.titles[i] : g.columns[i]);
            }
    for (const auto& r : g.rows) {
        out.rows.emplace_back();
        for (size_t i : at) out.rows.back().push_back(i < r.size() ? r[i] : "");
    }
    return out;
}

std::string list(const std::vector<std::string>& items) {
    if (items.empty()) return "";
    std::string out = "<ul class=notes>";
    for (const auto& n : items) out += "<li>" + esc(n) + "</li>";
    return out + "</ul>\n";
}

// Only the page's own two inline scripts may run: their hashes, not
// 'unsafe-inline', so markup that slipped into the page could run nothing.
const std::string& script_sources() {
    static const std::string s = fmt::format("'sha256-{}' 'sha256-{}'", sha256_base64(html::chartjs()),
                                             sha256_base64(html::page_script()));
    return s;
}

// The page around its sections; `plots` become canvases the script draws.
struct Page {
    std::string title, body;
    json plots = json::array();

    void canvas(json plot, const std::string& caption, int height = 300) {
        std::string id = fmt::format("plot{}", plots.size());
        plot["id"] = id;
        plots.push_back(std::move(plot));
        body += fmt::format("<figure><canvas id=\"{}\" width=\"900\" height=\"{}\"></canvas><figcaption>{}</figcaption>"
                            "</figure>\n", id, height, esc(caption));
    }

    std::string html() const {
        // Strings from result files may not be UTF-8: replaced, not fatal.
        std::string data = json{{"plots", plots}}.dump(-1, ' ', false, json::error_handler_t::replace);
        // Inside <script>, "</" ends the element and "<!--" starts the parser's
        // escaped states, which can swallow the scripts after it: no '<' at
        // all. JSON has '<' only inside strings, where \u003c spells it.
        for (size_t at = 0; (at = data.find('<', at)) != std::string::npos; at += 6) data.replace(at, 1, "\\u003c");
        return fmt::format(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src {}; "
            "style-src 'unsafe-inline'; img-src data:\">\n<title>{}</title>\n<style>{}</style>\n</head><body>\n"
            "<h1>{}</h1>\n{}"
            "<details><summary>Plots drawn with Chart.js (MIT/Expat license), inlined from Debian's libjs-chart.js"
            "</summary><pre>{}</pre></details>\n"
            "<pre id=\"eb-check\" hidden></pre>\n<script id=\"eb-data\" type=\"application/json\">{}</script>\n"
            "<script>{}</script>\n<script>{}</script>\n</body></html>\n",
            script_sources(), esc(title), html::page_style(), esc(title), body, esc(html::chartjs_license()), data, html::chartjs(),
            html::page_script());
    }
};

// Log-spaced bins of `xs`, with markers at the p50 and p99 (fractional bin positions).
json histogram_plot(const std::string& title, const std::vector<double>& xs, const std::string& unit) {
    constexpr size_t kBins = 30;
    auto h = stats::histogram(xs, kBins, true);
    std::vector<double> qs{0.5, 0.99};
    auto p = stats::percentiles(xs, qs);
    json labels = json::array();
    double llo = std::log(h.lo), step = (std::log(h.hi) - llo) / double(h.counts.size());
    for (size_t k = 0; k < h.counts.size(); ++k) labels.push_back(fmt::format("{:.0f}", std::exp(llo + step * (double(k) + 0.5))));
    auto at = [&](double v) { return step > 0 ? (std::log(v) - llo) / step - 0.5 : 0.0; };
    return {{"kind", "histogram"}, {"title", title}, {"x_title", unit}, {"labels", labels}, {"counts", h.counts},
            {"markers", {{{"at", at(p[0])}, {"label", fmt::format("p50 {:.0f}", p[0])}},
                         {{"at", at(p[1])}, {"label", fmt::format("p99 {:.0f}", p[1])}}}}};
}

void run_page(Page& pg, const suite::RunReport& r) {
    std::string head = esc(run_header(r));
    for (size_t at = 0; (at = head.find('\n', at)) != std::string::npos; at += 5) head.replace(at, 1, "<br>\n");
    // The summary fits a 1400 px window; every column is one click away.
    Grid all = run_grid(r);
    Grid summary = only(all, {"test", "status", "cycles_per_iter", "ci95_lo", "ci95_hi", "ns_per_iter", "minus_baseline",
                              "cv_within_pct", "cv_between_pct", "exit_kind", "exits_expected", "exits_measured",
                              "detail"});
    pg.body += "<p>" + head + "</p>\n<h2>Summary</h2>\n" + table(summary) + list(run_notes(r)) +
               fmt::format("<details><summary>all {} columns</summary>{}</details>\n", all.columns.size(), table(all));
    Grid env{{"fact", "value"}, {false, false}, {}, {}};
    const auto& pv = r.provenance;
    std::vector<std::pair<std::string, std::string>> facts{
        {"time (UTC)", pv.timestamp_utc}, {"hostname", pv.hostname}, {"build", pv.git_describe}};
    for (const auto& [k, v] : facts)
        if (!v.empty()) env.rows.push_back({k, v});
    for (const auto& [k, v] : r.env) env.rows.push_back({k, v});
    pg.body += "<h2>Environment</h2>\n<details><summary>" + std::to_string(env.rows.size()) +
               " facts</summary>" + table(env) + "</details>\n<h2>Per test</h2>\n";
    for (const auto& t : r.results) {
        auto hl = suite::headline(t);
        if (!hl) continue;
        json sessions = json::array(), medians = json::array();
        for (const auto& s : t.sessions) {
            sessions.push_back(s.samples);
            medians.push_back(s.samples.empty() ? 0.0 : stats::median(s.samples));
        }
        std::string level = hl->between_sessions ? "geometric mean of the session medians, 95% interval across sessions"
                                                 : "median of the repeats, 95% interval within this one session";
        pg.canvas({{"kind", "repeats"}, {"title", t.name + ": cycles per iteration"}, {"sessions", sessions},
                   {"session_medians", medians}, {"center", hl->cycles}, {"lo", hl->ci.lo}, {"hi", hl->ci.hi},
                   {"center_label", hl->between_sessions ? "geometric mean" : "median"}},
                  t.name + ": every repeat; " + level);
        auto net = net_per_exit(r, t);
        if (!net.empty())
            pg.canvas(histogram_plot(t.name + ": per-exit cycles (log bins)", net, "cycles (bin centre)"),
                      t.name + fmt::format(": {} single iterations, timestamp cost subtracted", net.size()));
    }
}

// --fail-if-slower's outcome, first on the page: what failed (with its Holm
// p) and what the gate could not test.
std::string gate_box(const GateView& g) {
    const char* cls = g.outcome == suite::GateOutcome::Regression    ? "fail"
                      : g.outcome == suite::GateOutcome::NotTestable ? "untested"
                                                                      : "pass";
    std::string out = fmt::format("<div class=\"gate {}\"><strong>{}: {}</strong>", cls,
                                  g.outcome == suite::GateOutcome::Regression    ? "REGRESSION"
                                  : g.outcome == suite::GateOutcome::NotTestable ? "gate not testable"
                                                                                  : "gate passed",
                                  esc(g.summary()));
    std::vector<std::string> lines;
    for (const auto& m : g.slower) lines.push_back((m.fails ? "REGRESSION " : "slower, within the gate: ") + m.line);
    for (const auto& m : g.not_testable) lines.push_back("not testable: " + m.line);
    return out + list(lines) + "</div>\n";
}

void compare_page(Page& pg, const Comparison& c) {
    if (c.gate) pg.body += gate_box(*c.gate);
    pg.body += list(c.header) + "<h2>Summary</h2>\n" + table(compare_grid(c)) + list(compare_notes(c));
    json rows = json::array(), control = json::array();
    for (const auto& t : c.report.tests)
        for (size_t i = 0; i < t.vs_first.size(); ++i) {
            const auto& e = t.vs_first[i];
            if (!std::isfinite(e.ratio)) continue;
            bool ci = std::isfinite(e.ratio_ci.lo) && std::isfinite(e.ratio_ci.hi);
            json row = {{"label", fmt::format("{} {}: {}", t.test, t.configs[i + 1].label, suite::verdict_name(e.verdict))},
                        {"change", (e.ratio - 1) * 100}, {"lo", ((ci ? e.ratio_ci.lo : e.ratio) - 1) * 100},
                        {"hi", ((ci ? e.ratio_ci.hi : e.ratio) - 1) * 100}, {"verdict", suite::verdict_name(e.verdict)}};
            (t.test == "baseline" ? control : rows).push_back(row);
        }
    pg.body += "<h2>B/A per test</h2>\n";
    if (!rows.empty())
        pg.canvas({{"kind", "forest"}, {"title", "ratio of geometric means, with its interval"}, {"rows", rows}},
                  "green: faster, red: slower, grey: no detectable difference or not testable (no interval)",
                  int(80 + 40 * rows.size()));
    if (!control.empty())
        pg.canvas({{"kind", "forest"}, {"title", "negative control: baseline (the empty loop)"}, {"rows", control}},
                  "the baseline should not move; an interval that excludes 0 is drift, not the configuration", 140);
}

void profile_page(Page& pg, const profile::Report& p) {
    pg.body += list(profile_lines(p)) + "<h2>Summary</h2>\n" + table(profile_grid(p));
    bool timed = p.degraded.empty() && p.total_time_ns > 0;
    json labels = json::array(), values = json::array();
    for (const auto& row : p.rows) {
        labels.push_back(row.name);
        double part = timed ? double(row.total_ns) : double(row.count);
        double whole = timed ? double(p.total_time_ns) : double(p.total_samples);
        values.push_back(whole > 0 ? part / whole * 100 : 0.0);
    }
    if (!p.rows.empty())
        pg.canvas({{"kind", "share"}, {"title", timed ? "share of handling time per reason" : "share of events (counts only)"},
                   {"x_title", timed ? "% of total handling time" : "% of events"}, {"labels", labels}, {"values", values}},
                  timed ? "time between kvm_exit and kvm_entry, summed per reason" : p.degraded,
                  int(100 + 24 * p.rows.size()));
    if (!timed) return;
    for (const auto& row : p.rows) {
        size_t lo = profile::kHistBuckets, hi = 0;
        for (size_t k = 0; k < row.log2_hist.size(); ++k)
            if (row.log2_hist[k]) lo = std::min(lo, k), hi = k;
        if (lo > hi) continue;
        json lab = json::array(), counts = json::array();
        for (size_t k = lo; k <= hi; ++k) {
            lab.push_back(k ? fmt::format("{}", uint64_t(1) << (k - 1)) : "0");
            counts.push_back(row.log2_hist[k]);
        }
        // Bucket k holds [2^(k-1), 2^k): a value v sits at log2(v) - lo + 0.5 bars from the first.
        auto at = [&](double v) { return v >= 1 && lo >= 1 ? std::log2(v) - double(lo) + 0.5 : 0.0; };
        pg.canvas({{"kind", "histogram"}, {"title", row.name + ": handling latency (log2 buckets)"}, {"x_title", "ns (bucket [2^(k-1), 2^k), by its lower edge)"},
                   {"labels", lab}, {"counts", counts},
                   {"markers", {{{"at", at(row.p50_ns)}, {"label", fmt::format("p50 {:.0f} ns", row.p50_ns)}},
                                {{"at", at(row.p99_ns)}, {"label", fmt::format("p99 {:.0f} ns", row.p99_ns)}}}}},
                  fmt::format("{}: {} exits", row.name, row.count), 260);
    }
}

// Per group one strip plot: each host's figure as % from the group's median,
// a column per test, outliers in red and named.
void merge_page(Page& pg, const Merged& m) {
    pg.body += list(merge_lines(m)) + "<h2>Summary</h2>\n" + table(merge_grid(m));
    for (const auto& g : m.groups) {
        pg.body += "<h2>" + esc(group_title(g)) + "</h2>\n";
        if (g.tests.empty()) continue;
        json tests = json::array();
        for (const auto& t : g.tests) {
            json hosts = json::array();
            for (const auto& h : t.hosts)
                hosts.push_back({{"host", h.host}, {"pct", t.median > 0 ? (h.cycles / t.median - 1) * 100 : 0.0},
                                 {"outlier", h.outlier}});
            tests.push_back({{"test", t.test}, {"hosts", hosts}});
        }
        pg.canvas({{"kind", "strip"}, {"title", "each host against its group's median, per test"}, {"tests", tests}},
                  g.hosts.size() < 3 ? fmt::format("{} host(s): a dot per host and test; outliers take 3 hosts to judge", g.hosts.size())
                                     : fmt::format("{} hosts: a dot per host and test; red and named: an outlier", g.hosts.size()));
    }
}

class Html : public Exporter {
public:
    std::string render(const suite::RunReport& r) const override { return page("exitbench run", [&](Page& p) { run_page(p, r); }); }
    std::string render(const Comparison& c) const override { return page("exitbench compare", [&](Page& p) { compare_page(p, c); }); }
    std::string render(const profile::Report& r) const override {
        return page("exitbench profile report", [&](Page& p) { profile_page(p, r); });
    }
    std::string render(const Merged& m) const override {
        return page("exitbench report merge", [&](Page& p) { merge_page(p, m); });
    }
    std::string render(const HostProfileComparison& c) const override;

private:
    template <class F>
    static std::string page(const char* title, F&& fill) {
        Page p;
        p.title = title;
        fill(p);
        return p.html();
    }
};

} // namespace

std::unique_ptr<Exporter> html_exporter() { return std::make_unique<Html>(); }

namespace {
size_t depth_of(const json& n) {
    size_t d = 0;
    for (const auto& c : n["children"]) d = std::max(d, depth_of(c));
    return d + 1;
}
} // namespace

std::string render_run_html(const suite::RunReport& r, const std::vector<profile::TestHostProfile>& host) {
    Page p;
    p.title = "exitbench run";
    run_page(p, r);
    if (!host.empty()) p.body += "<h2>Host profile</h2>\n";
    for (const auto& h : host) {
        if (h.samples == 0) continue;
        auto tree = flame_tree(h);
        int height = static_cast<int>(std::min<size_t>(depth_of(tree), 60) * 17 + 30);
        p.canvas({{"kind", "flame"}, {"title", h.test + ": host flame graph"}, {"root", tree}},
                 fmt::format("{}: {} samples of the vCPU threads while sampled batches ran, the root at the bottom, "
                             "a frame's width its share (blue: in the guest; orange: kernel; yellow: kernel "
                             "modules; green: exitbench; grey: other user code)",
                             h.test, h.samples),
                 height);
    }
    return p.html();
}

std::string render_trend_html(const std::string& test, const std::vector<TrendRow>& rows) {
    Page p;
    p.title = "exitbench history trend: " + test;
    Grid g{{"time", "run", "label", "host", "session", "median_cycles"}, {false, true, false, false, true, true}, {}, {}};
    json labels = json::array(), series = json::array();
    std::vector<std::string> hosts;
    for (size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        g.rows.push_back({r.when, std::to_string(r.run), r.label, r.host, std::to_string(r.session), fmt::format("{:.1f}", r.cycles)});
        labels.push_back(fmt::format("run {} {}", r.run, r.when.substr(0, 10)));
        size_t h = std::find(hosts.begin(), hosts.end(), r.host) - hosts.begin();
        if (h == hosts.size()) {
            hosts.push_back(r.host);
            series.push_back({{"host", r.host}, {"points", json::array()}});
        }
        series[h]["points"].push_back({{"x", i}, {"y", r.cycles}});
    }
    p.canvas({{"kind", "trend"}, {"title", test + ": session medians, oldest first"}, {"labels", labels},
              {"series", series}},
             fmt::format("{} saved sessions of {} on {} host(s); a point per session, a line per host", rows.size(), test,
                         hosts.size()));
    p.body += "<h2>Sessions</h2>\n" + table(g);
    return p.html();
}

namespace {
void diff_flames(Page& p, const std::vector<DiffFlame>& flames) {
    if (!flames.empty()) p.body += "<h2>Host profile: what moved</h2>\n";
    for (const auto& f : flames) {
        int height = static_cast<int>(std::min<size_t>(depth_of(f.tree), 60) * 17 + 30);
        p.canvas({{"kind", "flame_diff"}, {"title", f.title}, {"root", f.tree}},
                 fmt::format("{}: differential flame graph, the root at the bottom; a frame's width is the mean of "
                             "its ns per iteration on the two sides, its colour the change (red: more time in the "
                             "second, blue: less, white: the same)", f.title),
                 height);
    }
}
} // namespace

std::string render_compare_html(const Comparison& c, const std::vector<DiffFlame>& flames) {
    Page p;
    p.title = "exitbench compare";
    compare_page(p, c);
    diff_flames(p, flames);
    return p.html();
}

std::string Html::render(const HostProfileComparison& c) const { return render_host_diff_html(c.diff, c.flames); }

std::string render_host_diff_html(const profile::HostDiff& d, const std::vector<DiffFlame>& flames) {
    Page p;
    p.title = "exitbench host profile: " + d.label_b + " vs " + d.label_a;
    p.body += fmt::format("<p>{}</p>\n", esc(fmt::format("Per function, its ns per iteration with children; the unit "
                                                         "is the {} ({} a side at least); Holm over {} function(s) "
                                                         "tested at alpha {:g}. A function sampled on one side only "
                                                         "is listed as such, whatever its share.",
                                                         d.paired ? "round" : "run", d.rounds, d.family, d.alpha)));
    diff_flames(p, flames);
    p.body += "<h2>Functions</h2>\n" + table(host_diff_grid(d));
    for (const auto& n : d.notes) p.body += fmt::format("<p>note: {}</p>\n", esc(n));
    return p.html();
}

} // namespace eb::report
