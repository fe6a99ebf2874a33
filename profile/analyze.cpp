#include "profile/analyze.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

#include "profile/exit_reasons.h"
#include "profile/flat_index.h"

namespace eb::profile {

namespace {

uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

// printf's %#lx, which perf uses for keys: 0 prints as "0", not "0x0".
std::string alt_hex(uint64_t v) { return v ? fmt::format("{:#x}", v) : std::string("0"); }

struct Key {
    EventType type;
    uint64_t key;
    uint32_t info;
};

// The rows while events stream in: found by key, created on first sight
// (like perf, at the begin event), dropped at the end if never completed.
class Rows {
public:
    uint32_t find(const Key& k) {
        if (last_ != kNone && k.type == last_key_.type && k.key == last_key_.key && k.info == last_key_.info)
            return last_;
        bool added;
        uint32_t i = index_.find_or_add(k.key, (uint64_t(k.type) << 32) | k.info, added);
        if (added) {
            accs_.emplace_back();
            Row& r = accs_.back().row;
            r.type = k.type;
            r.key = k.key;
            r.info = k.info;
        }
        last_ = i;
        last_key_ = k;
        return i;
    }

    void add_timed(uint32_t i, uint64_t d, uint32_t vcpu) {
        Acc& a = accs_[i];
        Row& r = a.row;
        r.count++;
        r.total_ns = sat_add(r.total_ns, d);
        if (r.count == 1 || d < r.min_ns) r.min_ns = d;
        if (d > r.max_ns) r.max_ns = d;
        double delta = double(d) - r.mean_ns;  // Welford, in perf's order
        r.mean_ns += delta / double(r.count);
        r.m2 += delta * (double(d) - r.mean_ns);
        r.log2_hist[std::bit_width(d)]++;
        if (d <= UINT32_MAX)
            r.durations_ns.push_back(static_cast<uint32_t>(d));
        else
            r.long_durations_ns.push_back(d);
        VcpuStat& v = a.vcpu(vcpu);
        v.count++;
        v.total_ns = sat_add(v.total_ns, d);
        if (v.count == 1 || d < v.min_ns) v.min_ns = d;
        if (d > v.max_ns) v.max_ns = d;
    }

    void add_count(uint32_t i, uint32_t vcpu) {
        accs_[i].row.count++;
        accs_[i].vcpu(vcpu).count++;
    }

    std::vector<Row> take() {
        std::vector<Row> out;
        out.reserve(accs_.size());
        for (Acc& a : accs_) {
            if (a.row.count == 0) continue;
            std::sort(a.row.vcpus.begin(), a.row.vcpus.end(),
                      [](const VcpuStat& x, const VcpuStat& y) { return x.vcpu < y.vcpu; });
            out.push_back(std::move(a.row));
        }
        return out;
    }

private:
    static constexpr uint32_t kNone = UINT32_MAX;
    struct Acc {
        Row row;
        detail::FlatIndex vcpu_index;
        uint32_t last_vcpu = 0, last_slot = kNone;

        VcpuStat& vcpu(uint32_t id) {
            if (last_slot != kNone && last_vcpu == id) return row.vcpus[last_slot];
            bool added;
            uint32_t s = vcpu_index.find_or_add(id, 0, added);
            if (added) row.vcpus.push_back(VcpuStat{id});
            last_vcpu = id;
            last_slot = s;
            return row.vcpus[s];
        }
    };

    std::vector<Acc> accs_;
    detail::FlatIndex index_;
    uint32_t last_ = kNone;
    Key last_key_{};
};

// Per-thread pairing state, as perf's vcpu_event_record.
struct Thread {
    uint64_t begin_ts = 0, last_ts = 0;
    uint32_t begin_row = 0;  // the row of a keyed begin
    uint16_t begin_cpu = 0;
    bool pending = false;  // a begin is open
    bool keyed = false;    // ... and it carried the key
    bool started = false;  // this thread has had a begin
    bool gap = false;      // its open begin was discarded for lost events
    uint64_t begin_losses = 0;  // Lost records on begin_cpu before the begin
};

class Threads {
public:
    Thread& get(uint32_t tid, bool& added) {
        if (last_ != UINT32_MAX && tid == last_tid_) {
            added = false;
            return threads_[last_];
        }
        uint32_t i = index_.find_or_add(tid, 0, added);
        if (added) threads_.emplace_back();
        last_ = i;
        last_tid_ = tid;
        return threads_[i];
    }
    std::vector<Thread>& all() { return threads_; }

    // Lost records, counted per CPU: a thread learns of those on its begin's
    // CPU when next seen, so each record costs O(1), not O(threads).
    void lose(uint16_t cpu) {
        if (cpu >= losses_.size()) losses_.resize(size_t(cpu) + 1);
        losses_[cpu]++;
    }
    uint64_t losses(uint16_t cpu) const { return cpu < losses_.size() ? losses_[cpu] : 0; }

private:
    std::vector<Thread> threads_;
    std::vector<uint64_t> losses_;
    detail::FlatIndex index_;
    uint32_t last_ = UINT32_MAX, last_tid_ = 0;
};

// A begin whose events may be gone would pair with a later, wrong end: one
// open across a Lost record on its CPU is discarded.
void settle_losses(Thread& th, const Threads& threads, Report& rep) {
    if (!th.pending || threads.losses(th.begin_cpu) == th.begin_losses) return;
    if (th.keyed) rep.dropped.lost_gap++;
    th.pending = false;
    th.gap = true;  // its end, when it comes, is already accounted for
}

// What an event is to a mode's pairing (perf's is_begin_event /
// is_end_event), and the key it carries, if any.
enum class Role { None, Begin, End, Cancel };

struct Classified {
    Role role = Role::None;
    bool keyed = false;
    Key key{};
};

Classified classify(Mode mode, const Event& e) {
    switch (mode) {
    case Mode::VmExit:
        if (e.type == EventType::Exit) return {Role::Begin, true, {EventType::Exit, e.a, 0}};
        if (e.type == EventType::Entry) return {Role::End, false, {}};
        break;
    case Mode::Mmio:
        // read: kvm_exit -> kvm_mmio(read), keyed at the end; write:
        // kvm_mmio(write) -> kvm_entry, keyed at the begin.
        if (e.type == EventType::Exit) return {Role::Begin, false, {}};
        if (e.type == EventType::Entry) return {Role::End, false, {}};
        if (e.type == EventType::Mmio && e.b == kMmioWrite)
            return {Role::Begin, true, {EventType::Mmio, e.a, uint32_t(kMmioWrite)}};
        if (e.type == EventType::Mmio && e.b == kMmioRead)
            return {Role::End, true, {EventType::Mmio, e.a, uint32_t(kMmioRead)}};
        break;
    case Mode::Ioport:
        if (e.type == EventType::Pio) return {Role::Begin, true, {EventType::Pio, e.a, e.b != 0}};
        if (e.type == EventType::Entry) return {Role::End, false, {}};
        if (e.type == EventType::Exit) return {Role::Cancel, false, {}};
        break;
    case Mode::Msr:
        if (e.type == EventType::Msr) return {Role::Begin, true, {EventType::Msr, e.a, e.b != 0}};
        if (e.type == EventType::Entry) return {Role::End, false, {}};
        if (e.type == EventType::Exit) return {Role::Cancel, false, {}};
        break;
    }
    return {};
}

std::string key_name(const Row& r, std::string_view isa) {
    switch (r.type) {
    case EventType::Exit: return exit_reason_name(isa, r.key);
    case EventType::Mmio:
        return alt_hex(r.key) + (r.info == kMmioWrite ? ":W" : r.info == kMmioRead ? ":R" : ":R(unsatisfied)");
    case EventType::Pio: return alt_hex(r.key) + (r.info ? ":POUT" : ":PIN");
    case EventType::Msr: return alt_hex(r.key) + (r.info ? ":W" : ":R");
    case EventType::UserspaceExit: return userspace_exit_name(r.key);
    case EventType::EmulateInsn: return r.info ? "failed" : "";
    default: return "";
    }
}

// Degraded rows say which tracepoint they count.
std::string count_name(const Row& r, std::string_view isa) {
    std::string k = key_name(r, isa);
    std::string t(event_type_name(r.type));
    return k.empty() ? t : t + " " + k;
}

// Exact type-7 quantiles (as stats::quantile) over a row's durations without
// sorting them all: selection on a scratch copy.
class Quantiles {
public:
    explicit Quantiles(const Row& r) : small_(r.durations_ns), long_(r.long_durations_ns) {
        std::sort(long_.begin(), long_.end());
    }
    double operator()(double q) {
        size_t n = small_.size() + long_.size();
        double pos = q * double(n - 1);
        size_t lo = static_cast<size_t>(std::floor(pos));
        double v = kth(lo);
        if (pos == double(lo) || lo + 1 >= n) return v;
        return v + (pos - double(lo)) * (kth(lo + 1) - v);
    }

private:
    double kth(size_t k) {
        if (k >= small_.size()) return double(long_[k - small_.size()]);
        std::nth_element(small_.begin(), small_.begin() + static_cast<ptrdiff_t>(k), small_.end());
        return double(small_[k]);
    }
    std::vector<uint32_t> small_;
    std::vector<uint64_t> long_;
};

void sort_rows(std::vector<Row>& rows, const std::string& key) {
    auto by_name = [](const Row& a, const Row& b) {
        if (a.name != b.name) return a.name < b.name;
        return std::tie(a.type, a.key, a.info) < std::tie(b.type, b.key, b.info);
    };
    auto desc = [&](auto metric) {
        return [metric, by_name](const Row& a, const Row& b) {
            auto x = metric(a), y = metric(b);
            if (x != y) return x > y;
            return by_name(a, b);
        };
    };
    if (key == "ev_name")
        std::sort(rows.begin(), rows.end(), by_name);
    else if (key == "sample")
        std::sort(rows.begin(), rows.end(), desc([](const Row& r) { return r.count; }));
    else if (key == "time")
        std::sort(rows.begin(), rows.end(), desc([](const Row& r) { return r.total_ns; }));
    else if (key == "max_t")
        std::sort(rows.begin(), rows.end(), desc([](const Row& r) { return r.max_ns; }));
    else if (key == "min_t")
        std::sort(rows.begin(), rows.end(), desc([](const Row& r) { return r.min_ns; }));
    else if (key == "mean_t")
        std::sort(rows.begin(), rows.end(), desc([](const Row& r) { return r.mean_ns; }));
}

void check_sort(const std::string& key) {
    static const char* const kKeys[] = {"ev_name", "sample", "time", "max_t", "min_t", "mean_t"};
    for (const char* k : kKeys)
        if (key == k) return;
    throw std::invalid_argument("unknown sort key '" + key + "' (ev_name, sample, time, max_t, min_t, mean_t)");
}

// Counts per tracepoint and key, for traces whose exits cannot be timed.
std::vector<Row> count_rows(std::span<const Event> events, const Options& opt) {
    Rows rows;
    for (const Event& e : events) {
        if (opt.vcpu && e.vcpu != *opt.vcpu) continue;
        Key k{e.type, 0, 0};
        switch (e.type) {
        case EventType::Lost: continue;
        case EventType::Exit: k.key = e.a; break;
        case EventType::Entry: break;
        case EventType::Mmio: k = {e.type, e.a, e.b > kMmioWrite ? uint32_t(kMmioRead) : uint32_t(e.b)}; break;
        case EventType::Pio:
        case EventType::Msr: k = {e.type, e.a, e.b != 0}; break;
        case EventType::UserspaceExit: k.key = e.a; break;
        case EventType::EmulateInsn: k.info = e.b != 0; break;
        default: continue;
        }
        bool wanted = opt.mode == Mode::VmExit || (opt.mode == Mode::Mmio && e.type == EventType::Mmio) ||
                      (opt.mode == Mode::Ioport && e.type == EventType::Pio) ||
                      (opt.mode == Mode::Msr && e.type == EventType::Msr);
        if (wanted) rows.add_count(rows.find(k), e.vcpu);
    }
    std::vector<Row> out = rows.take();
    for (Row& r : out) r.timed = false;
    return out;
}

std::string degraded_note(const Report& r, std::span<const Event> events, std::string_view backend,
                          const std::vector<std::string>* tracepoints) {
    uint64_t exits = r.events_by_type[uint8_t(EventType::Exit)];
    uint64_t entries = r.events_by_type[uint8_t(EventType::Entry)];
    if (exits && entries) return {};
    const char* missing = exits ? "kvm_entry" : "kvm_exit";
    std::string where = backend.empty() ? std::string() : fmt::format(" (backend {})", backend);
    std::string why = "never fired in this trace";
    auto listed = [&](const std::string& t) { return t == missing || t == std::string("kvm:") + missing; };
    if (tracepoints && std::none_of(tracepoints->begin(), tracepoints->end(), listed))
        why = "was not available on the recording host";
    if (events.empty()) return fmt::format("the trace holds no events{}: nothing to time or count", where);
    return fmt::format("{} {}{}: no handling latency can be measured. The rows count the KVM events that did "
                       "fire ({} in all), without latency; they are not a count of guest exits.",
                       missing, why, where, events.size());
}

Report run(std::span<const Event> events, std::string_view isa, const Options& opt, uint64_t header_lost,
           std::string_view backend, const std::vector<std::string>* tracepoints) {
    check_sort(opt.sort);
    Report rep;
    rep.mode = opt.mode;
    rep.vcpu = opt.vcpu;
    rep.sort = opt.sort;
    rep.isa = std::string(isa);
    rep.backend = std::string(backend);
    uint64_t lost_records = 0;
    Rows rows;
    Threads threads;

    for (const Event& e : events) {
        auto t = static_cast<uint8_t>(e.type);
        rep.events_by_type[valid_event_type(t) ? t : 0]++;
        if (e.type == EventType::Lost) {
            lost_records = sat_add(lost_records, e.a);
            threads.lose(e.cpu);
            continue;
        }
        if (opt.vcpu && e.vcpu != *opt.vcpu) continue;
        Classified c = classify(opt.mode, e);
        if (c.role == Role::None) continue;
        bool added;
        Thread& th = threads.get(e.tid, added);
        settle_losses(th, threads, rep);
        if (!added && e.ts_ns < th.last_ts) rep.out_of_order++;
        th.last_ts = e.ts_ns;

        if (c.role == Role::Cancel || c.role == Role::Begin) {
            // A new exit while a keyed begin is open: its end was lost.
            if (th.pending && th.keyed && e.type == EventType::Exit) rep.dropped.no_end++;
            th.pending = th.gap = false;
            if (c.role == Role::Cancel) continue;
            th.pending = th.started = true;
            th.begin_ts = e.ts_ns;
            th.begin_cpu = e.cpu;
            th.begin_losses = threads.losses(e.cpu);
            th.keyed = c.keyed;
            if (c.keyed) th.begin_row = rows.find(c.key);
            continue;
        }
        // End.
        if (!th.pending) {
            if (th.gap) {
                th.gap = false;
                continue;
            }
            if (opt.mode == Mode::VmExit || c.keyed) (th.started ? rep.dropped.no_begin : rep.unpaired_at_start)++;
            continue;
        }
        if (!th.keyed && !c.keyed) continue;  // e.g. a non-MMIO exit's entry: nothing to time, as perf
        uint32_t row = th.keyed ? th.begin_row : rows.find(c.key);
        th.pending = false;
        if (e.ts_ns < th.begin_ts) {
            rep.dropped.end_before_begin++;
            continue;
        }
        rows.add_timed(row, e.ts_ns - th.begin_ts, e.vcpu);
    }
    for (Thread& th : threads.all()) {
        settle_losses(th, threads, rep);
        if (th.pending && th.keyed) rep.in_flight_at_end++;
    }
    rep.lost_events = std::max(header_lost, lost_records);

    rep.degraded = degraded_note(rep, events, backend, tracepoints);
    rep.rows = rep.degraded.empty() ? rows.take() : count_rows(events, opt);
    for (Row& r : rep.rows) {
        r.name = r.timed ? key_name(r, isa) : count_name(r, isa);
        if (r.timed) {
            Quantiles q(r);
            r.p50_ns = q(0.5);
            r.p99_ns = q(0.99);
        }
        rep.total_samples += r.count;
        rep.total_time_ns = sat_add(rep.total_time_ns, r.total_ns);
    }
    sort_rows(rep.rows, opt.sort);
    return rep;
}

} // namespace

std::string_view mode_name(Mode m) {
    switch (m) {
    case Mode::VmExit: return "vmexit";
    case Mode::Mmio: return "mmio";
    case Mode::Ioport: return "ioport";
    case Mode::Msr: return "msr";
    }
    return "?";
}

Mode parse_mode(std::string_view s) {
    for (Mode m : {Mode::VmExit, Mode::Mmio, Mode::Ioport, Mode::Msr})
        if (s == mode_name(m)) return m;
    throw std::invalid_argument("unknown event mode '" + std::string(s) + "' (vmexit, mmio, ioport, msr)");
}

double Row::stddev_ns() const { return count < 2 ? 0.0 : std::sqrt(m2 / double(count - 1)); }

double Row::rel_sem_pct() const {
    if (count < 2 || mean_ns == 0) return 0.0;
    return 100.0 * (stddev_ns() / std::sqrt(double(count))) / mean_ns;
}

Report analyze(const TraceFile& trace, const Options& opt) {
    return run(trace.events, trace.header.isa, opt, trace.header.lost_events, trace.header.backend,
               trace.header.tracepoints.empty() ? nullptr : &trace.header.tracepoints);
}

Report analyze(std::span<const Event> events, std::string_view isa, const Options& opt, uint64_t lost_events,
               std::string_view backend) {
    return run(events, isa, opt, lost_events, backend, nullptr);
}

} // namespace eb::profile
