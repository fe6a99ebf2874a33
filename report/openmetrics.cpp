// Metrics for a fleet: the Prometheus text exposition format (0.0.4), as
// node_exporter's textfile collector reads it. No sample carries a timestamp
// (the collector refuses those); the run's time is a gauge of its own.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <ctime>
#include <fmt/format.h>
#include <map>

#include "report/exporter.h"
#include "report/openmetrics.h"
#include "report/grids.h"
#include "stats/inference.h"
#include "suite/registry.h"

namespace eb::report {

namespace {

// The length of the well-formed UTF-8 sequence of a character from U+00A0
// up at s[i] (RFC 3629: no overlong forms, surrogates or C1 controls), else 0.
size_t utf8_char(std::string_view s, size_t i) {
    auto at = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
    auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xbf) { return at(k) >= lo && at(k) <= hi; };
    unsigned c = at(0);
    if (c == 0xc2) return cont(1, 0xa0) ? 2 : 0;
    if (c >= 0xc3 && c <= 0xdf) return cont(1) ? 2 : 0;
    if (c == 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
    if (c == 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
    if (c >= 0xe1 && c <= 0xef) return cont(1) && cont(2) ? 3 : 0;
    if (c == 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
    if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
    if (c == 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
    return 0;
}

} // namespace

std::string metric_label_value(std::string_view s) {
    // Label values may be any UTF-8: "tést" and "tüst" stay apart. Other
    // bytes and controls are spelled \xNN (escaped for the format), so they
    // stay apart too and the file stays valid UTF-8.
    std::string out;
    for (size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        if (size_t n = c >= 0x80 ? utf8_char(s, i) : 0) {
            out.append(s.substr(i, n));
            i += n;
            continue;
        }
        if (c == '\\') out += "\\\\";
        else if (c == '"') out += "\\\"";
        else if (c == '\n') out += "\\n";
        else if (c < 0x20 || c >= 0x7f) out += fmt::format("\\\\x{:02x}", c);
        else out += static_cast<char>(c);
        ++i;
    }
    return out;
}

void Metrics::family(const std::string& name, const char* type, const std::string& help) {
    std::string h;
    for (char c : help) h += c == '\\' ? "\\\\" : c == '\n' ? "\\n" : std::string(1, c);
    text_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, h, name, type);
}

void Metrics::sample(const std::string& name, const Labels& labels, double value) {
    if (!std::isfinite(value)) return;  // an unknown figure is absent, not NaN
    std::string l;
    for (const auto& [k, v] : labels) l += fmt::format("{}{}=\"{}\"", l.empty() ? "" : ",", k, metric_label_value(v));
    char num[64];
    auto end = std::to_chars(num, num + sizeof num, value).ptr;  // shortest form that reads back exactly
    text_ += fmt::format("{}{}{}{} {}\n", name, l.empty() ? "" : "{", l, l.empty() ? "" : "}",
                         std::string_view(num, size_t(end - num)));
}

namespace {

Labels with(Labels base, std::initializer_list<std::pair<std::string, std::string>> more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
}

double epoch_seconds(const std::string& iso) {
    std::tm tm{};
    const char* end = strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return end && !*end ? double(timegm(&tm)) : NAN;
}

// --per-exit: single iterations as a histogram in seconds. The bounds are
// the same on every host (1-2.5-5 steps from 100 ns to 10 ms), so a fleet
// can sum the buckets and take quantiles across hosts.
void per_exit_histogram(Metrics& m, const suite::RunReport& r, const Labels& host) {
    static const std::vector<double> bounds = {1e-7, 2.5e-7, 5e-7, 1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5,
                                               1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2};
    bool any = false;
    for (const auto& t : r.results) {
        auto net = net_per_exit(r, t);
        if (net.empty() || !(r.host.tsc_mhz > 0)) continue;
        if (!any) m.family("exitbench_per_exit_seconds", "histogram", "--per-exit: single iterations, minus the "
                                                                      "timestamp pair's cost, at the TSC frequency");
        any = true;
        std::vector<size_t> in(bounds.size() + 1, 0);
        double sum = 0;
        for (double cycles : net) {
            double sec = cycles / (r.host.tsc_mhz * 1e6);
            sum += sec;
            ++in[size_t(std::lower_bound(bounds.begin(), bounds.end(), sec) - bounds.begin())];
        }
        size_t cumulative = 0;
        for (size_t i = 0; i <= bounds.size(); ++i) {
            cumulative += in[i];
            std::string le = i < bounds.size() ? fmt::format("{:g}", bounds[i]) : "+Inf";
            m.sample("exitbench_per_exit_seconds_bucket", with(host, {{"test", t.name}, {"le", le}}), double(cumulative));
        }
        m.sample("exitbench_per_exit_seconds_sum", with(host, {{"test", t.name}}), sum);
        m.sample("exitbench_per_exit_seconds_count", with(host, {{"test", t.name}}), double(net.size()));
    }
}

// The run as a whole, rewritten by every run whatever its outcome: when it
// ended, and whether its tests passed (a failure a known limitation of the
// backend explains does not count). The tool's own failures are its exit status.
void last_run_metrics(Metrics& m, const suite::RunReport& r, const Labels& host) {
    double start = epoch_seconds(r.provenance.timestamp_utc);
    double took = r.wall_time ? r.wall_time->total / 1e9 : 0;
    m.family("exitbench_last_run_timestamp_seconds", "gauge", "when the last run ended, Unix time");
    m.sample("exitbench_last_run_timestamp_seconds", host, start + took);
    bool passed = !r.interrupted;
    size_t expected = 0;
    for (const auto& t : r.results) {
        bool known = suite::expected_failure(r, t).has_value();
        expected += known;
        if (suite::is_failure(t.status) && !known) passed = false;
    }
    m.family("exitbench_last_run_success", "gauge", "1 when the last run finished and no test failed, else 0");
    m.sample("exitbench_last_run_success", host, passed ? 1 : 0);
    if (r.wall_time) {
        m.family("exitbench_last_run_duration_seconds", "gauge", "wall time of the last run");
        m.sample("exitbench_last_run_duration_seconds", host, took);
    }
    if (expected)
        m.family("exitbench_test_expected_failure", "gauge", "1 for a failed test a known limitation of the "
                                                             "backend explains (kselftest's XFAIL)");
    for (const auto& t : r.results)
        if (suite::expected_failure(r, t)) m.sample("exitbench_test_expected_failure", with(host, {{"test", t.name}}), 1);
}

void run_metrics(Metrics& m, const suite::RunReport& r) {
    // `host`: the files of two hosts in one collector stay two sets of
    // series; two files of one host collide, as they should.
    // `execution`: emulated (QEMU TCG), hardware (a boot under KVM) or host:
    // an emulated figure never passes for a host's.
    Labels host{{"host", r.provenance.hostname}, {"backend", vmm::backend_name(r.host.backend)},
                {"cpu_model", r.host.cpu_model}, {"kernel", r.host.kernel_release},
                {"execution", suite::execution_of(r)}};
    m.family("exitbench_run_info", "gauge", "1, labelled with where and from which build the run came");
    std::string microcode;  // for PromQL joins: the fleet's spread by CPU model and microcode
    for (const auto& [k, v] : r.env)
        if (k == "cpu.microcode") microcode = v;
    m.sample("exitbench_run_info", with(host, {{"hostname", r.provenance.hostname}, {"version", r.tool_version},
                                               {"git", r.provenance.git_describe}, {"microcode", microcode}}), 1);
    m.family("exitbench_run_timestamp_seconds", "gauge", "when the run started, Unix time");
    m.sample("exitbench_run_timestamp_seconds", host, epoch_seconds(r.provenance.timestamp_utc));
    last_run_metrics(m, r, host);
    m.family("exitbench_exit_seconds", "gauge", "seconds per iteration: the median of the repeats (one session) or "
                                                "the geometric mean of the session medians, at the TSC frequency");
    for (const auto& t : r.results)
        if (auto hl = suite::headline(t)) m.sample("exitbench_exit_seconds", with(host, {{"test", t.name}}), hl->cycles / (r.host.tsc_mhz * 1e6));
    m.family("exitbench_exit_seconds_ci95", "gauge", "bounds of the 95% interval of exitbench_exit_seconds");
    for (const auto& t : r.results)
        if (auto hl = suite::headline(t)) {
            double hz = r.host.tsc_mhz * 1e6;
            m.sample("exitbench_exit_seconds_ci95", with(host, {{"test", t.name}, {"bound", "lower"}}), hl->ci.lo / hz);
            m.sample("exitbench_exit_seconds_ci95", with(host, {{"test", t.name}, {"bound", "upper"}}), hl->ci.hi / hz);
        }
    m.family("exitbench_exit_cycles", "gauge", "exitbench_exit_seconds in TSC cycles, the unit KVM patches quote");
    for (const auto& t : r.results)
        if (auto hl = suite::headline(t)) m.sample("exitbench_exit_cycles", with(host, {{"test", t.name}}), hl->cycles);
    m.family("exitbench_exits_per_iteration", "gauge", "exits per iteration as the host's counters verified them");
    for (const auto& t : r.results)
        if (t.exits.measured) m.sample("exitbench_exits_per_iteration", with(host, {{"test", t.name}}), *t.exits.measured);
    m.family("exitbench_test_status", "gauge", "1 for the status each test ended with");
    for (const auto& t : r.results)
        m.sample("exitbench_test_status", with(host, {{"test", t.name}, {"status", suite::status_name(t.status)}}), 1);
    per_exit_histogram(m, r, host);
}

std::string side_execution(const suite::ComparisonReport& r, size_t k) {
    return k < r.side_execution.size() ? r.side_execution[k] : "host";
}

void compare_metrics(Metrics& m, const Comparison& c) {
    m.family("exitbench_compare_cycles", "gauge", "geometric mean of the unit medians, cycles per iteration");
    for (const auto& t : c.report.tests)
        for (size_t i = 0; i < t.configs.size(); ++i)  // position: a file compared with itself is two series
            m.sample("exitbench_compare_cycles", {{"test", t.test}, {"config", t.configs[i].label},
                                                  {"position", std::to_string(i)},
                                                  {"execution", side_execution(c.report, i)}},
                     t.configs[i].unit_medians.empty() ? NAN : t.configs[i].center);
    // Each family's samples stay together, as the format requires.
    auto each = [&](auto&& f) {
        for (const auto& t : c.report.tests)
            for (size_t i = 0; i < t.vs_first.size(); ++i)
                f(t.vs_first[i], Labels{{"test", t.test}, {"config", t.configs[i + 1].label},
                                        {"position", std::to_string(i + 1)}, {"reference", t.configs[0].label}});
    };
    m.family("exitbench_compare_ratio", "gauge", "ratio of geometric means, config / reference");
    each([&](const suite::Effect& e, const Labels& l) { m.sample("exitbench_compare_ratio", l, e.ratio); });
    m.family("exitbench_compare_ratio_ci", "gauge", "bounds of the interval of exitbench_compare_ratio");
    each([&](const suite::Effect& e, const Labels& l) {
        m.sample("exitbench_compare_ratio_ci", with(l, {{"bound", "lower"}}), e.ratio_ci.lo);
        m.sample("exitbench_compare_ratio_ci", with(l, {{"bound", "upper"}}), e.ratio_ci.hi);
    });
    m.family("exitbench_compare_verdict", "gauge", "1 for the verdict of each config against the reference");
    each([&](const suite::Effect& e, const Labels& l) {
        m.sample("exitbench_compare_verdict", with(l, {{"verdict", suite::verdict_name(e.verdict)}}), 1);
    });
}

void profile_metrics(Metrics& m, const profile::Report& p) {
    Labels base{{"backend", p.backend}, {"isa", p.isa}, {"mode", std::string(profile::mode_name(p.mode))}};
    m.family("exitbench_profile_events_total", "counter", "events of each reason in the trace");
    for (const auto& row : p.rows)
        m.sample("exitbench_profile_events_total", with(base, {{"reason", row.name},
                 {"tracepoint", std::string(profile::event_type_name(row.type))}}), double(row.count));
    m.family("exitbench_profile_lost_events_total", "counter", "events the ring buffer lost");
    m.sample("exitbench_profile_lost_events_total", base, double(p.lost_events));
    if (!p.degraded.empty()) return;  // no latency to report
    m.family("exitbench_profile_handling_seconds", "summary", "host handling time, kvm_exit to kvm_entry");
    for (const auto& row : p.rows) {
        if (!row.timed) continue;
        Labels l = with(base, {{"reason", row.name}});
        if (p.imported.empty()) {  // an imported perf table has no quantiles: no series rather than 0
            m.sample("exitbench_profile_handling_seconds", with(l, {{"quantile", "0.5"}}), row.p50_ns / 1e9);
            m.sample("exitbench_profile_handling_seconds", with(l, {{"quantile", "0.99"}}), row.p99_ns / 1e9);
        }
        m.sample("exitbench_profile_handling_seconds_sum", l, double(row.total_ns) / 1e9);
        m.sample("exitbench_profile_handling_seconds_count", l, double(row.count));
    }
}

// A fleet's view: each host's figure in its group, the group's spread, and
// which hosts are outliers (only where the group has the 3 hosts it takes).
void merge_metrics(Metrics& m, const Merged& mg) {
    auto each = [&](auto&& f) {
        for (const auto& g : mg.groups)
            for (const auto& t : g.tests)
                f(t, Labels{{"backend", g.backend}, {"cpu_model", g.cpu_model}, {"microcode", g.microcode},
                            {"kernel", g.kernel}, {"test", t.test}});
    };
    m.family("exitbench_merge_host_cycles", "gauge", "a host's cycles per iteration: the median over its runs");
    each([&](const MergedTest& t, const Labels& l) {
        for (const auto& h : t.hosts) m.sample("exitbench_merge_host_cycles", with(l, {{"host", h.host}}), h.cycles);
    });
    m.family("exitbench_merge_spread_ratio", "gauge", "(max - min) / median of the hosts in the group");
    each([&](const MergedTest& t, const Labels& l) { m.sample("exitbench_merge_spread_ratio", l, t.spread_pct / 100); });
    m.family("exitbench_merge_outlier", "gauge", "1 for a host flagged as an outlier in its group, else 0");
    each([&](const MergedTest& t, const Labels& l) {
        if (t.hosts.size() < 3) return;
        for (const auto& h : t.hosts) m.sample("exitbench_merge_outlier", with(l, {{"host", h.host}}), h.outlier ? 1 : 0);
    });
}

class OpenMetrics : public Exporter {
public:
    std::string render(const suite::RunReport& r) const override { return build([&](Metrics& m) { run_metrics(m, r); }); }
    std::string render(const Comparison& c) const override { return build([&](Metrics& m) { compare_metrics(m, c); }); }
    std::string render(const profile::Report& p) const override { return build([&](Metrics& m) { profile_metrics(m, p); }); }
    std::string render(const Merged& g) const override { return build([&](Metrics& m) { merge_metrics(m, g); }); }

private:
    template <class F>
    static std::string build(F&& fill) {
        Metrics m;
        fill(m);
        return m.text();
    }
};

} // namespace

std::unique_ptr<Exporter> openmetrics_exporter() { return std::make_unique<OpenMetrics>(); }

} // namespace eb::report
