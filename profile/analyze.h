// The perf kvm stat job on an exitbench trace: pair tracepoints per thread
// into handling latencies, keyed by exit reason, MMIO address, I/O port or MSR,
// with perf's statistics (count, min, max, Welford mean, relative standard
// error) plus exact p50/p99, log2 histograms, a per-vCPU breakdown, loss and
// drop accounting, and an A/B comparison with a significance test.
#pragma once
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "profile/event.h"
#include "profile/trace_file.h"
#include "stats/inference.h"

namespace eb::profile {

// perf kvm stat's --event: vmexit, mmio, ioport, msr.
enum class Mode { VmExit, Mmio, Ioport, Msr };
std::string_view mode_name(Mode m);
Mode parse_mode(std::string_view s);  // throws InputError

// perf kvm stat's -k/--key values.
inline constexpr std::array<std::string_view, 6> kSortKeys = {"ev_name", "sample", "time", "max_t", "min_t", "mean_t"};

struct Options {
    Mode mode = Mode::VmExit;
    std::optional<uint32_t> vcpu;  // only events whose vcpu field matches
    std::string sort = "sample";   // perf's -k: ev_name, sample, time (total), max_t, min_t, mean_t
};

struct VcpuStat {
    uint32_t vcpu = 0;
    uint64_t count = 0;
    uint64_t total_ns = 0;
    uint64_t min_ns = 0;
    uint64_t max_ns = 0;
    double mean_ns() const { return count ? double(total_ns) / double(count) : 0; }
};

inline constexpr size_t kHistBuckets = 65;  // [0]: 0 ns; [k]: [2^(k-1), 2^k) ns

struct Row {
    // What the row counts: Exit (key = exit reason), Mmio (key = gpa, info =
    // 1 read / 2 write), Pio (key = port, info = 0 in / 1 out), Msr (key =
    // index, info = 0 read / 1 write); degraded rows may be any type, and
    // UserspaceExit keys on the KVM_EXIT_* reason, EmulateInsn on `failed`.
    EventType type = EventType::Exit;
    uint64_t key = 0;
    uint32_t info = 0;
    std::string name;    // as perf prints it: "MSR_WRITE", "0xfee00300:W", "0x3f8:POUT"
    bool timed = true;   // false: a count of events without any latency
    uint64_t count = 0;
    uint64_t total_ns = 0, min_ns = 0, max_ns = 0;
    double mean_ns = 0, m2 = 0;  // Welford, as perf's util/stat.c
    double p50_ns = 0, p99_ns = 0;  // exact, type-7 quantiles of every duration
    std::array<uint64_t, kHistBuckets> log2_hist{};
    std::vector<VcpuStat> vcpus;          // ascending vcpu id
    std::vector<uint32_t> durations_ns;   // every duration below 2^32 ns, in pairing order
    std::vector<uint64_t> long_durations_ns;  // the rest (>= ~4.3 s), in pairing order

    double stddev_ns() const;    // sample standard deviation; 0 below 2 samples
    double rel_sem_pct() const;  // perf's ( +- x% ): 100 * (s / sqrt(n)) / mean
};

// Pairs that could not be timed.
struct Drops {
    uint64_t no_begin = 0;          // an end whose begin was never seen (mid-thread)
    uint64_t end_before_begin = 0;  // end timestamp earlier than its begin
    uint64_t no_end = 0;            // a keyed begin replaced by a new kvm_exit before its end
    uint64_t lost_gap = 0;          // a begin discarded because events were lost on its cpu
    uint64_t total() const { return no_begin + end_before_begin + no_end + lost_gap; }
};

struct Report {
    Mode mode = Mode::VmExit;
    std::optional<uint32_t> vcpu;
    std::string sort = "sample";
    std::string isa = "unknown";
    std::string backend;
    std::vector<Row> rows;       // sorted by `sort`
    uint64_t total_samples = 0;  // sum of row counts
    uint64_t total_time_ns = 0;  // sum of row times
    uint64_t lost_events = 0;    // max(header, sum of Lost records)
    Drops dropped;
    uint64_t unpaired_at_start = 0;  // an end as a thread's first event: the trace began mid-exit
    uint64_t in_flight_at_end = 0;   // keyed begins still open when the trace ended
    uint64_t out_of_order = 0;       // events earlier than their thread's previous event
    std::array<uint64_t, kLastEventType + 1> events_by_type{};  // whole trace, before the vcpu filter
    // Non-empty when latencies could not be measured (kvm_exit or kvm_entry
    // never fired); the rows are then counts of the events that did fire.
    std::string degraded;
    // Non-empty when read from another tool's summary table (perf_text.h):
    // what it came from. Rows then have no durations: no p50/p99, histogram,
    // per-vCPU figures or latency test.
    std::string imported;
};

Report analyze(const TraceFile& trace, const Options& opt);

// The same, fed one event at a time, for events not held in memory (a
// perf.data read as it streams). Add every event in the trace's order (each
// thread's own events in time order is what pairing needs); if degraded()
// then (no kvm_exit or no kvm_entry: no latency), count() them all again;
// then finish(), once. Throws InputError for an unknown opt.sort.
class Analysis {
public:
    explicit Analysis(const Options& opt);
    ~Analysis();
    Analysis(const Analysis&) = delete;
    Analysis& operator=(const Analysis&) = delete;
    void add(const Event& e);
    bool degraded() const;
    void count(const Event& e);
    Report finish(std::string_view isa, uint64_t header_lost, std::string_view backend,
                  const std::vector<std::string>* tracepoints);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};
// The same on bare events; lost_events as the header's.
Report analyze(std::span<const Event> events, std::string_view isa, const Options& opt,
               uint64_t lost_events = 0, std::string_view backend = {});

nlohmann::json to_json(const Report& r);

// One key (matched on type, key and info) across two reports.
struct ReasonChange {
    EventType type = EventType::Exit;
    uint64_t key = 0;
    uint32_t info = 0;
    std::string name;
    uint64_t old_count = 0, new_count = 0;
    double old_share_pct = 0, new_share_pct = 0;  // of each report's total samples
    double old_mean_ns = 0, new_mean_ns = 0;
    double old_p50_ns = 0, new_p50_ns = 0;
    double old_p99_ns = 0, new_p99_ns = 0;
    // Both sides timed: the mean, p50 and p99 of new over old, minus 1. One
    // trace a side is one VM a side: its exits share that VM's placement and
    // host state, so they are not independent units and no test is run on
    // them; these shifts are descriptive ("not testable").
    bool timed = false;
    double mean_rel = 0, p50_rel = 0, p99_rel = 0;
    bool summary_only = false;  // both timed, but a side is an imported summary: means only
    // compare_sets: the traces holding the key timed, and the test across
    // them (each trace's mean handling time one unit; Welch's t on the logs;
    // Holm over the keys tested). tested is false below two traces a side.
    size_t old_traces = 0, new_traces = 0;
    bool tested = false;
    double ratio = 0, ci_lo = 0, ci_hi = 0, p = 1, p_holm = 1;
    const char* verdict = "";
};

// Throws InputError when the modes differ, or the ISAs do in
// vmexit mode (the same code means different exits).
std::vector<ReasonChange> compare(const Report& old_rep, const Report& new_rep);
// Several traces a side (profile compare OLD... --vs NEW...): counts summed,
// means and percentiles averaged over the traces, and a test per key with
// the trace as the unit. Throws as compare() for any pair of reports.
std::vector<ReasonChange> compare_sets(const std::vector<Report>& olds, const std::vector<Report>& news,
                                       double alpha = 0.05);

} // namespace eb::profile
