// Text and JSON views of a Report. render_perf reproduces perf kvm stat
// report --stdio (print_result in tools/perf/builtin-kvm.c) column for column.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "profile/analyze.h"

namespace eb::profile {

namespace {

constexpr int kNameWidth = 40;  // perf's KVM_EVENT_NAME_LEN

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
    out += fmt::format("{:>{}} {:>10} {:>9} \n\n", "KVM event (count only)", kNameWidth, "Samples", "Samples%");
    for (const Row& row : r.rows)
        out += fmt::format("{:>{}} {:>10} {:>8.2f}%\n", row.name, kNameWidth, row.count,
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

} // namespace

std::string render_perf(const Report& r) {
    std::string out;
    head(out, r);
    if (!r.degraded.empty()) {
        count_table(out, r);
        footer(out, r);
        return out;
    }
    out += fmt::format("{:>{}} {:>10} {:>9} {:>9} {:>11} {:>11} {:>16} \n\n", title(r.mode), kNameWidth, "Samples",
                       "Samples%", "Time%", "Min Time", "Max Time", "Avg time");
    for (const Row& row : r.rows)
        out += fmt::format("{:>{}} {:>10} {:>8.2f}% {:>8.2f}% {:>9.2f}us {:>9.2f}us {:>9.2f}us ( +-{:>7.2f}% )\n",
                           row.name, kNameWidth, row.count, pct(double(row.count), double(r.total_samples)),
                           pct(double(row.total_ns), double(r.total_time_ns)), us(double(row.min_ns)),
                           us(double(row.max_ns)), us(double(row.total_ns) / double(row.count)),
                           row.rel_sem_pct());
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
                           kNameWidth, "Samples", "Samples%", "Time%", "Min Time", "p50", "p99", "Max Time",
                           "Avg time");
        for (const Row& row : r.rows)
            out += fmt::format(
                "{:>{}} {:>10} {:>8.2f}% {:>8.2f}% {:>9.2f}us {:>9.2f}us {:>9.2f}us {:>9.2f}us {:>9.2f}us "
                "( +-{:>7.2f}% )\n",
                row.name, kNameWidth, row.count, pct(double(row.count), double(r.total_samples)),
                pct(double(row.total_ns), double(r.total_time_ns)), us(double(row.min_ns)), us(row.p50_ns),
                us(row.p99_ns), us(double(row.max_ns)), us(double(row.total_ns) / double(row.count)),
                row.rel_sem_pct());
    }
    footer(out, r);
    out += fmt::format("Events in trace: {}\n", type_counts(r));
    if (r.unpaired_at_start || r.in_flight_at_end || r.out_of_order)
        out += fmt::format("Trace edges: {} ends before their thread's first begin, {} begins open at the end; "
                           "{} events out of time order within their thread\n",
                           r.unpaired_at_start, r.in_flight_at_end, r.out_of_order);

    out += "\nPer-vCPU breakdown:\n\n";
    out += r.degraded.empty()
               ? fmt::format("{:>{}} {:>6} {:>10} {:>16}\n\n", title(r.mode), kNameWidth, "VCPU", "Samples", "Avg time")
               : fmt::format("{:>{}} {:>6} {:>10}\n\n", "KVM event (count only)", kNameWidth, "VCPU", "Samples");
    for (const Row& row : r.rows)
        for (const VcpuStat& v : row.vcpus)
            out += r.degraded.empty()
                       ? fmt::format("{:>{}} {:>6} {:>10} {:>14.2f}us\n", row.name, kNameWidth, v.vcpu, v.count,
                                     us(v.mean_ns()))
                       : fmt::format("{:>{}} {:>6} {:>10}\n", row.name, kNameWidth, v.vcpu, v.count);
    if (r.degraded.empty()) {
        out += "\nLatency histograms (log2 buckets):\n\n";
        for (const Row& row : r.rows) histogram(out, row);
    }
    return out;
}

nlohmann::json to_json(const Report& r) {
    using nlohmann::json;
    json rows = json::array();
    for (const Row& row : r.rows) {
        json j = {{"name", row.name},
                  {"tracepoint", event_type_name(row.type)},
                  {"key", row.key},
                  {"info", row.info},
                  {"timed", row.timed},
                  {"count", row.count}};
        json vcpus = json::array();
        for (const VcpuStat& v : row.vcpus) {
            json jv = {{"vcpu", v.vcpu}, {"count", v.count}};
            if (row.timed) {
                jv["total_ns"] = v.total_ns;
                jv["mean_ns"] = v.mean_ns();
                jv["min_ns"] = v.min_ns;
                jv["max_ns"] = v.max_ns;
            }
            vcpus.push_back(jv);
        }
        if (row.timed) {
            json hist = json::array();
            for (size_t k = 0; k < row.log2_hist.size(); ++k)
                if (row.log2_hist[k])
                    hist.push_back({{"lo_ns", k ? uint64_t(1) << (k - 1) : 0},
                                    {"hi_ns", k < 64 ? json(uint64_t(1) << k) : json(18446744073709551615.0)},
                                    {"count", row.log2_hist[k]}});
            j["total_ns"] = row.total_ns;
            j["min_ns"] = row.min_ns;
            j["max_ns"] = row.max_ns;
            j["mean_ns"] = row.mean_ns;
            j["stddev_ns"] = row.stddev_ns();
            j["rel_sem_pct"] = row.rel_sem_pct();
            bool summary = !r.imported.empty();
            j["p50_ns"] = summary ? json(nullptr) : json(row.p50_ns);
            j["p99_ns"] = summary ? json(nullptr) : json(row.p99_ns);
            j["log2_hist"] = summary ? json(nullptr) : hist;
        }
        j["vcpus"] = vcpus;
        rows.push_back(j);
    }
    json events = json::object();
    for (uint8_t t = kFirstEventType; t <= kLastEventType; ++t)
        events[std::string(event_type_name(EventType(t)))] = r.events_by_type[t];
    if (r.events_by_type[0]) events["invalid"] = r.events_by_type[0];
    return {{"mode", mode_name(r.mode)},
            {"vcpu", r.vcpu ? json(*r.vcpu) : json(nullptr)},
            {"sort", r.sort},
            {"isa", r.isa},
            {"backend", r.backend},
            {"degraded", r.degraded.empty() ? json(nullptr) : json(r.degraded)},
            {"imported", r.imported.empty() ? json(nullptr) : json(r.imported)},
            {"total_samples", r.total_samples},
            {"total_time_ns", r.total_time_ns},
            {"lost_events", r.lost_events},
            {"dropped",
             {{"total", r.dropped.total()},
              {"no_begin", r.dropped.no_begin},
              {"end_before_begin", r.dropped.end_before_begin},
              {"no_end", r.dropped.no_end},
              {"lost_gap", r.dropped.lost_gap}}},
            {"unpaired_at_start", r.unpaired_at_start},
            {"in_flight_at_end", r.in_flight_at_end},
            {"out_of_order", r.out_of_order},
            {"events", events},
            {"rows", rows}};
}

} // namespace eb::profile
