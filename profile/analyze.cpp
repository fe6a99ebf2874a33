#include "profile/analyze.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

#include "profile/accumulators.h"
#include "profile/exit_reasons.h"
#include "sys/error.h"

namespace eb::profile {

namespace {

// printf's %#lx, which perf uses for keys: 0 prints as "0", not "0x0".
std::string alt_hex(uint64_t v) { return v ? fmt::format("{:#x}", v) : std::string("0"); }

using detail::Key;
using detail::Rows;
using detail::Thread;
using detail::Threads;

// What an event is to a mode's pairing (perf's is_begin_event /
// is_end_event), and the key it carries, if any.
enum class Role { None, Begin, End, Cancel };

struct Pairing {
    Role role = Role::None;
    bool keyed = false;
    Key key{};
};

Pairing pairing_of(Mode mode, const Event& e) {
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
    throw InputError("unknown sort key '" + key + "' (ev_name, sample, time, max_t, min_t, mean_t)");
}

// Counts per tracepoint and key, for traces whose exits cannot be timed.
class CountRows {
public:
    explicit CountRows(const Options& opt) : opt_(opt) {}

    void add(const Event& e) {
        if (opt_.vcpu && e.vcpu != *opt_.vcpu) return;
        Key k{e.type, 0, 0};
        switch (e.type) {
        case EventType::Lost: return;
        case EventType::Exit: k.key = e.a; break;
        case EventType::Entry: break;
        case EventType::Mmio: k = {e.type, e.a, e.b > kMmioWrite ? uint32_t(kMmioRead) : uint32_t(e.b)}; break;
        case EventType::Pio:
        case EventType::Msr: k = {e.type, e.a, e.b != 0}; break;
        case EventType::UserspaceExit: k.key = e.a; break;
        case EventType::EmulateInsn: k.info = e.b != 0; break;
        default: return;
        }
        bool wanted = opt_.mode == Mode::VmExit || (opt_.mode == Mode::Mmio && e.type == EventType::Mmio) ||
                      (opt_.mode == Mode::Ioport && e.type == EventType::Pio) ||
                      (opt_.mode == Mode::Msr && e.type == EventType::Msr);
        if (wanted) rows_.add_count(rows_.find(k), e.vcpu);
    }

    std::vector<Row> take() {
        std::vector<Row> out = rows_.take();
        for (Row& r : out) r.timed = false;
        return out;
    }

private:
    const Options& opt_;
    Rows rows_;
};

// No latency without both ends of an exit: the rows are then counts.
bool untimed(const Report& r) {
    return !r.events_by_type[uint8_t(EventType::Exit)] || !r.events_by_type[uint8_t(EventType::Entry)];
}

std::string degraded_note(const Report& r, uint64_t events, std::string_view backend,
                          const std::vector<std::string>* tracepoints) {
    if (!untimed(r)) return {};
    const char* missing = r.events_by_type[uint8_t(EventType::Exit)] ? "kvm_entry" : "kvm_exit";
    std::string where = backend.empty() ? std::string() : fmt::format(" (backend {})", backend);
    std::string why = "never fired in this trace";
    auto listed = [&](const std::string& t) { return t == missing || t == std::string("kvm:") + missing; };
    if (tracepoints && std::none_of(tracepoints->begin(), tracepoints->end(), listed))
        why = "was not available on the recording host";
    if (events == 0) return fmt::format("the trace holds no events{}: nothing to time or count", where);
    return fmt::format("{} {}{}: no handling latency can be measured. The rows count the KVM events that did "
                       "fire ({} in all), without latency; they are not a count of guest exits.",
                       missing, why, where, events);
}

// Pairs a mode's begin and end events per thread into timed rows, as perf
// kvm stat's vcpu_event_record does, and accounts for what cannot be paired.
class Pairer {
public:
    Pairer(const Options& opt, Report& rep) : opt_(opt), rep_(rep) {}

    void add(const Event& e) {
        auto t = static_cast<uint8_t>(e.type);
        rep_.events_by_type[valid_event_type(t) ? t : 0]++;
        if (e.type == EventType::Lost) return lost(e);
        if (opt_.vcpu && e.vcpu != *opt_.vcpu) return;
        Pairing c = pairing_of(opt_.mode, e);
        if (c.role == Role::None) return;
        bool added;
        Thread& th = threads_.get(e.tid, added);
        settle_losses(th);
        if (!added && e.ts_ns < th.last_ts) rep_.out_of_order++;
        th.last_ts = e.ts_ns;
        if (c.role == Role::End)
            end(th, e, c);
        else
            begin(th, e, c);
    }

    // Returns the timed rows.
    std::vector<Row> finish(uint64_t header_lost) {
        for (Thread& th : threads_.all()) {
            settle_losses(th);
            if (th.pending && th.keyed) rep_.in_flight_at_end++;
        }
        rep_.lost_events = std::max(header_lost, lost_records_);
        return rows_.take();
    }

private:
    void lost(const Event& e) {
        lost_records_ = sat_add(lost_records_, e.a);
        threads_.lose(e.cpu);
    }

    // A begin whose events may be gone would pair with a later, wrong end: one
    // open across a Lost record on its CPU is discarded.
    void settle_losses(Thread& th) {
        if (!th.pending || threads_.losses(th.begin_cpu) == th.begin_losses) return;
        if (th.keyed) rep_.dropped.lost_gap++;
        th.pending = false;
        th.gap = true;  // its end, when it comes, is already accounted for
    }

    void begin(Thread& th, const Event& e, const Pairing& c) {
        // A new exit while a keyed begin is open: its end was lost.
        if (th.pending && th.keyed && e.type == EventType::Exit) rep_.dropped.no_end++;
        th.pending = th.gap = false;
        if (c.role == Role::Cancel) return;
        th.pending = th.started = true;
        th.begin_ts = e.ts_ns;
        th.begin_cpu = e.cpu;
        th.begin_losses = threads_.losses(e.cpu);
        th.keyed = c.keyed;
        if (c.keyed) th.begin_row = rows_.find(c.key);
    }

    void end(Thread& th, const Event& e, const Pairing& c) {
        if (!th.pending) {
            if (th.gap) {
                th.gap = false;
                return;
            }
            if (opt_.mode == Mode::VmExit || c.keyed) (th.started ? rep_.dropped.no_begin : rep_.unpaired_at_start)++;
            return;
        }
        if (!th.keyed && !c.keyed) return;  // e.g. a non-MMIO exit's entry: nothing to time, as perf
        uint32_t row = th.keyed ? th.begin_row : rows_.find(c.key);
        th.pending = false;
        if (e.ts_ns < th.begin_ts) {
            rep_.dropped.end_before_begin++;
            return;
        }
        rows_.add_timed(row, e.ts_ns - th.begin_ts, e.vcpu);
    }

    const Options& opt_;
    Report& rep_;
    Rows rows_;
    Threads threads_;
    uint64_t lost_records_ = 0;
};

// Names the rows, adds their quantiles and the totals, and sorts them.
void finish_rows(Report& rep, std::string_view isa, const std::string& sort) {
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
    sort_rows(rep.rows, sort);
}

// The analyzer: pairing, or counts where exits cannot be timed, then the rows.
Report analyze_events(std::span<const Event> events, std::string_view isa, const Options& opt,
                      uint64_t header_lost, std::string_view backend,
                      const std::vector<std::string>* tracepoints) {
    Analysis a(opt);
    for (const Event& e : events) a.add(e);
    if (a.degraded())
        for (const Event& e : events) a.count(e);
    return a.finish(isa, header_lost, backend, tracepoints);
}

} // namespace

struct Analysis::Impl {
    explicit Impl(const Options& o) : opt(o), pairer(opt, rep), counts(opt) {}
    Options opt;
    Report rep;
    Pairer pairer;
    CountRows counts;
    uint64_t events = 0;
};

Analysis::Analysis(const Options& opt) : impl_(std::make_unique<Impl>(opt)) {
    check_sort(opt.sort);
    impl_->rep.mode = opt.mode;
    impl_->rep.vcpu = opt.vcpu;
    impl_->rep.sort = opt.sort;
}

Analysis::~Analysis() = default;

void Analysis::add(const Event& e) {
    ++impl_->events;
    impl_->pairer.add(e);
}

bool Analysis::degraded() const { return untimed(impl_->rep); }

void Analysis::count(const Event& e) { impl_->counts.add(e); }

Report Analysis::finish(std::string_view isa, uint64_t header_lost, std::string_view backend,
                        const std::vector<std::string>* tracepoints) {
    Report& rep = impl_->rep;
    rep.isa = std::string(isa);
    rep.backend = std::string(backend);
    std::vector<Row> timed = impl_->pairer.finish(header_lost);
    rep.degraded = degraded_note(rep, impl_->events, backend, tracepoints);
    rep.rows = rep.degraded.empty() ? std::move(timed) : impl_->counts.take();
    finish_rows(rep, isa, rep.sort);
    return std::move(rep);
}

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
    throw InputError("unknown event mode '" + std::string(s) + "' (vmexit, mmio, ioport, msr)");
}

double Row::stddev_ns() const { return count < 2 ? 0.0 : std::sqrt(m2 / double(count - 1)); }

double Row::rel_sem_pct() const {
    if (count < 2 || mean_ns == 0) return 0.0;
    return 100.0 * (stddev_ns() / std::sqrt(double(count))) / mean_ns;
}

Report analyze(const TraceFile& trace, const Options& opt) {
    return analyze_events(trace.events, trace.header.isa, opt, trace.header.lost_events, trace.header.backend,
                          trace.header.tracepoints.empty() ? nullptr : &trace.header.tracepoints);
}

Report analyze(std::span<const Event> events, std::string_view isa, const Options& opt, uint64_t lost_events,
               std::string_view backend) {
    return analyze_events(events, isa, opt, lost_events, backend, nullptr);
}

} // namespace eb::profile
