// A profile as text: render_perf reproduces perf kvm stat report --stdio
// (print_result in tools/perf/builtin-kvm.c) column for column;
// render_extended adds percentiles, drops, vCPUs and histograms; and
// render_profile_compare lays out a before/after per key.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "report/profile_text.h"

namespace eb::report {

using namespace profile;

namespace {

constexpr int kEventNameWidth = 40;  // perf's KVM_EVENT_NAME_LEN

const char* title(Mode m) {
    switch (m) {
    case Mode::VmExit: return "VM-EXIT";
    case Mode::Mmio: return "MMIO Access";
    case Mode::Ioport: return "IO Port Access";
    case Mode::Msr: return "MSR Access";
    }
    return "?";
}

double pct(double part, double whole) { return whole > 0 ? part / whole * 100 : 0; }
double us(double ns) { return ns / 1000; }
// perf's "( +- E% )"; nothing for a row imported without one.
std::string spread(const Row& row) {
    double e = row.rel_sem_pct();
    return std::isfinite(e) ? fmt::format("( +-{:>7.2f}% )", e) : "";
}

// 512ns, 1.02us, 3.40ms, 1.07s: for histogram edges and compare columns.
std::string human(double ns) {
    if (ns < 1000) return fmt::format("{:.0f}ns", ns);
    if (ns < 1e6) return fmt::format("{:.2f}us", ns / 1e3);
    if (ns < 1e9) return fmt::format("{:.2f}ms", ns / 1e6);
    return fmt::format("{:.2f}s", ns / 1e9);
}

void head(std::string& out, const Report& r) {
    out += "Analyze events for all VMs, ";
    out += r.vcpu ? fmt::format("VCPU {}:\n\n", *r.vcpu) : std::string("all VCPUs:\n\n");
    if (!r.degraded.empty()) out += fmt::format("NOTE: {}\n\n", r.degraded);
}

void footer(std::string& out, const Report& r) {
    if (r.degraded.empty())
        out += fmt::format("\nTotal Samples:{}, Total events handled time:{:.2f}us.\n\n", r.total_samples,
                           us(double(r.total_time_ns)));
    else
        out += fmt::format("\nTotal events counted:{} (counts only, no latency).\n\n", r.total_samples);
    if (r.lost_events) out += fmt::format("\nLost events: {}\n\n", r.lost_events);
    const Drops& d = r.dropped;
    if (d.total())
        out += fmt::format("Dropped pairs: {} (begin not seen {}, end before begin {}, end not seen {}, "
                           "lost events {})\n\n",
                           d.total(), d.no_begin, d.end_before_begin, d.no_end, d.lost_gap);
}

// The count-only table for a degraded report: perf's columns, no times.
void count_table(std::string& out, const Report& r) {
    out += fmt::format("{:>{}} {:>10} {:>9} \n\n", "KVM event (count only)", kEventNameWidth, "Samples", "Samples%");
    for (const Row& row : r.rows)
        out += fmt::format("{:>{}} {:>10} {:>8.2f}%\n", row.name, kEventNameWidth, row.count,
                           pct(double(row.count), double(r.total_samples)));
}

std::string type_counts(const Report& r) {
    std::string s;
    for (uint8_t t = kFirstEventType; t <= kLastEventType; ++t) {
        if (!s.empty()) s += ", ";
        s += fmt::format("{} {}", event_type_name(EventType(t)), r.events_by_type[t]);
    }
    if (r.events_by_type[0]) s += fmt::format(", invalid {}", r.events_by_type[0]);
    return s;
}

void histogram(std::string& out, const Row& row) {
    size_t lo = 0, hi = 0;
    uint64_t peak = 0;
    for (size_t k = 0; k < row.log2_hist.size(); ++k) {
        if (!row.log2_hist[k]) continue;
        if (!peak) lo = k;
        hi = k;
        peak = std::max(peak, row.log2_hist[k]);
    }
    if (!peak) return;
    out += fmt::format("{} ({} samples)\n", row.name, row.count);
    for (size_t k = lo; k <= hi; ++k) {
        double a = k == 0 ? 0 : std::ldexp(1.0, int(k) - 1), b = std::ldexp(1.0, int(k));
        std::string range = k == 0 ? std::string("[0ns]") : fmt::format("[{}, {})", human(a), human(b));
        auto bar = static_cast<size_t>(double(row.log2_hist[k]) / double(peak) * 40 + 0.5);
        if (row.log2_hist[k] && !bar) bar = 1;
        out += fmt::format("  {:>20} {:>10} {}\n", range, row.log2_hist[k], std::string(bar, '#'));
    }
}

std::string us_text(double ns) { return fmt::format("{:.2f}us", ns / 1000); }

std::string change_pct(double ratio) { return fmt::format("{:+.1f}%", (ratio - 1) * 100); }

// A timed row's verdict: the test across traces, or why there is none.
std::string timed_verdict(const ReasonChange& c) {
    if (c.tested)
        return fmt::format("{} (mean {} [{}, {}], p {:.3g}, Holm p {:.3g}; {} vs {} traces)", c.verdict,
                           change_pct(c.ratio), change_pct(c.ci_lo), change_pct(c.ci_hi), c.p, c.p_holm, c.old_traces, c.new_traces);
    if (c.old_traces <= 1 && c.new_traces <= 1) return "not testable (one trace a side)";
    if (c.old_traces >= 2 && c.new_traces >= 2) return "not testable (the traces agree exactly)";
    return fmt::format("not testable ({} vs {} traces)", c.old_traces, c.new_traces);
}

} // namespace

std::string render_perf(const Report& r) {
    std::string out;
    head(out, r);
    if (!r.degraded.empty()) {
        count_table(out, r);
        footer(out, r);
        return out;
    }
    out += fmt::format("{:>{}} {:>10} {:>9} {:>9} {:>11} {:>11} {:>16} \n\n", title(r.mode), kEventNameWidth, "Samples",
                       "Samples%", "Time%", "Min Time", "Max Time", "Avg time");
    for (const Row& row : r.rows)
        out += fmt::format("{:>{}} {:>10} {:>8.2f}% {:>8.2f}% {:>9.2f}us {:>9.2f}us {:>9.2f}us {}\n",
                           row.name, kEventNameWidth, row.count, pct(double(row.count), double(r.total_samples)),
                           pct(double(row.total_ns), double(r.total_time_ns)), us(double(row.min_ns)),
                           us(double(row.max_ns)), us(double(row.total_ns) / double(row.count)), spread(row));
    footer(out, r);
    return out;
}

std::string render_extended(const Report& r) {
    std::string out;
    head(out, r);
    if (!r.degraded.empty()) {
        count_table(out, r);
    } else {
        out += fmt::format("{:>{}} {:>10} {:>9} {:>9} {:>11} {:>11} {:>11} {:>11} {:>16} \n\n", title(r.mode),
                           kEventNameWidth, "Samples", "Samples%", "Time%", "Min Time", "p50", "p99", "Max Time",
                           "Avg time");
        for (const Row& row : r.rows)
            out += fmt::format(
                "{:>{}} {:>10} {:>8.2f}% {:>8.2f}% {:>9.2f}us {:>9.2f}us {:>9.2f}us {:>9.2f}us {:>9.2f}us {}\n",
                row.name, kEventNameWidth, row.count, pct(double(row.count), double(r.total_samples)),
                pct(double(row.total_ns), double(r.total_time_ns)), us(double(row.min_ns)), us(row.p50_ns),
                us(row.p99_ns), us(double(row.max_ns)), us(double(row.total_ns) / double(row.count)), spread(row));
    }
    footer(out, r);
    out += fmt::format("Events in trace: {}\n", type_counts(r));
    if (r.unpaired_at_start || r.in_flight_at_end || r.out_of_order)
        out += fmt::format("Trace edges: {} ends before their thread's first begin, {} begins open at the end; "
                           "{} events out of time order within their thread\n",
                           r.unpaired_at_start, r.in_flight_at_end, r.out_of_order);

    out += "\nPer-vCPU breakdown:\n\n";
    out += r.degraded.empty()
               ? fmt::format("{:>{}} {:>6} {:>10} {:>16}\n\n", title(r.mode), kEventNameWidth, "VCPU", "Samples", "Avg time")
               : fmt::format("{:>{}} {:>6} {:>10}\n\n", "KVM event (count only)", kEventNameWidth, "VCPU", "Samples");
    for (const Row& row : r.rows)
        for (const VcpuStat& v : row.vcpus)
            out += r.degraded.empty()
                       ? fmt::format("{:>{}} {:>6} {:>10} {:>14.2f}us\n", row.name, kEventNameWidth, v.vcpu, v.count,
                                     us(v.mean_ns()))
                       : fmt::format("{:>{}} {:>6} {:>10}\n", row.name, kEventNameWidth, v.vcpu, v.count);
    if (r.degraded.empty()) {
        out += "\nLatency histograms (log2 buckets):\n\n";
        for (const Row& row : r.rows) histogram(out, row);
    }
    return out;
}

std::string render_profile_compare(const std::vector<ReasonChange>& changes, Mode mode) {
std::string out = fmt::format("{:>40} {:>23} {:>22} {:>22} {:>24}  {}\n\n", title(mode), "Samples old -> new",
                                  "Avg time old -> new", "p50 old -> new", "Shift mean/p50/p99", "Verdict");
    auto rel = [](double r) { return std::isnan(r) ? std::string("-") : fmt::format("{:+.1f}%", 100 * r); };
    for (const ReasonChange& c : changes) {
        std::string counts = fmt::format("{} -> {}", c.old_count, c.new_count);
        std::string avg = "-", p50 = "-", shift = "-", verdict;
        if (c.timed) {
            avg = fmt::format("{} -> {}", us_text(c.old_mean_ns), us_text(c.new_mean_ns));
            p50 = fmt::format("{} -> {}", us_text(c.old_p50_ns), us_text(c.new_p50_ns));
            shift = fmt::format("{}/{}/{}", rel(c.mean_rel), rel(c.p50_rel), rel(c.p99_rel));
            verdict = timed_verdict(c);
        } else if (c.summary_only) {
            avg = fmt::format("{} -> {}", us_text(c.old_mean_ns), us_text(c.new_mean_ns));
            verdict = "means only (an imported summary has no durations)";
        } else if (!c.old_count) {
            verdict = "only in new";
        } else if (!c.new_count) {
            verdict = "only in old";
        } else {
            verdict = "counts only (no latency)";
        }
        out += fmt::format("{:>40} {:>23} {:>22} {:>22} {:>24}  {}\n", c.name, counts, avg, p50, shift, verdict);
    }
    if (std::any_of(changes.begin(), changes.end(), [](const ReasonChange& c) { return c.tested; }))
        return out + "\nEach trace is one VM and one unit: a key's trace means are tested with Welch's t on their "
                     "logs, Holm-adjusted over the keys tested. Several traces a side: means and percentiles are "
                     "averages over the traces.\n";
    out += "\nOne trace a side is one VM a side: its exits share that VM, so they are not independent units and "
           "the shifts above are descriptive, not a test. To test a change, compare runs (exitbench compare), "
           "whose units are runs, or give several traces a side (profile compare OLD1 OLD2 --vs NEW1 NEW2).\n";
    return out;
}

} // namespace eb::report
