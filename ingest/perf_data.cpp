#include "ingest/perf_data.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fcntl.h>
#include <functional>
#include <optional>
#include <unistd.h>
#include <unordered_map>
#include <vector>

#include "ingest/perf_file.h"
#include "ingest/perf_tracing.h"
#include "profile/trace_file.h"
#include "sys/error.h"
#include "sys/fd.h"

namespace eb::ingest {

namespace {

using profile::Event;
using profile::EventType;

// The kvm tracepoints kept, with the fields each reads into an Event (see
// profile/event.h): required ones first, the optional vcpu_id last.
struct Kept {
    const char* name;
    EventType type;
    std::array<const char*, 4> fields;  // a, b, flags-or-isa, vcpu_id ("" for none)
};
constexpr Kept kKept[] = {
    {"kvm_exit", EventType::Exit, {"exit_reason", "guest_rip", "isa", "vcpu_id"}},
    {"kvm_entry", EventType::Entry, {"rip", "", "", "vcpu_id"}},
    {"kvm_msr", EventType::Msr, {"ecx", "write", "", ""}},
    {"kvm_pio", EventType::Pio, {"port", "rw", "size", ""}},
    {"kvm_mmio", EventType::Mmio, {"gpa", "type", "len", ""}},
    {"kvm_userspace_exit", EventType::UserspaceExit, {"reason", "", "", ""}},
};
constexpr uint64_t kIsaSvm = 2;  // kvm_exit's isa: KVM_ISA_VMX 1, KVM_ISA_SVM 2
constexpr uint8_t kUnresolvedVcpu = 1;  // Event::pad while the vcpu comes from the thread's last entry/exit

// What one attribute's samples become.
struct Tp {
    std::string name;                   // "kvm:kvm_exit"
    const Kept* kept = nullptr;         // null: left out
    std::array<std::optional<perf::Field>, 4> f;
};

// A perf.data's kvm events, to a sink, in one of two orders:
//  - Time: all events in time order, as perf's tools see them;
//  - Thread: as the file holds them, which pairing takes whenever each
//    thread's events are in time order in the file (perf record drains each
//    CPU's buffer in turn, so a thread's events stay in order unless it
//    migrated within a pass). run() then returns false at the first that is
//    not, and the caller starts again in Time order.
class Events {
public:
    enum class Order { Time, Thread };
    using Sink = std::function<void(const Event&)>;
    Events(const std::string& path, Order order, Sink sink)
        : path_(path), reader_(path), order_(order), sink_(std::move(sink)) {}

    bool run() {
        perf::Record r;
        while (reader_.next(r)) {
            record(r);
            if (out_of_order_) return false;
        }
        flush(UINT64_MAX);
        if (result_.events == 0)
            throw InputError(fmt::format("{}: no kvm tracepoint samples among its {} samples (was it recorded "
                                         "with 'perf kvm stat record'?)", path_, samples_));
        result_.isa = isa_;
        result_.pipe_mode = reader_.pipe_mode();
        result_.tracepoints = kvm_tracepoints();
        return true;
    }

    // The kvm tracepoints the file recorded (fired or not), once its tracing data is read.
    std::vector<std::string> kvm_tracepoints() const {
        std::vector<std::string> out;
        for (const perf::Attr& a : reader_.attrs()) {
            auto ev = a.type == perf::kAttrTypeTracepoint && tracing_ ? tracing_->event(a.config) : std::nullopt;
            if (ev && ev->system == "kvm") out.push_back(ev->name);
        }
        return out;
    }

    const PerfEvents& result() const { return result_; }

private:
    void record(const perf::Record& r) {
        switch (r.type) {
        case perf::kRecordTracingData: tracing_ = std::make_unique<perf::TracingData>(r.body), tps_.clear(); break;
        case perf::kRecordSample: sample(r); break;
        case perf::kRecordFinishedRound:
            if (order_ == Order::Time) flush(round_limit_), round_limit_ = max_time_;
            break;
        case perf::kRecordLost: result_.lost += r.body.size() >= 16 ? load(r.body.data() + 8) : 0; break;
        case 13 /* LOST_SAMPLES */: result_.lost += r.body.size() >= 8 ? load(r.body.data()) : 0; break;
        default: break;
        }
    }

    static uint64_t load(const uint8_t* p) { uint64_t v; std::memcpy(&v, p, 8); return v; }

    const Tp& tp_of(size_t index, const perf::Attr& a) {
        if (index < tps_.size() && tps_[index]) return *tps_[index];
        if (index >= tps_.size()) tps_.resize(index + 1);
        Tp& t = tps_[index].emplace();
        std::optional<perf::EventFormat> ev;
        if (a.type == perf::kAttrTypeTracepoint && tracing_) ev = tracing_->event(a.config);
        t.name = ev ? ev->system + ":" + ev->name : fmt::format("event type {} config {:#x}", a.type, a.config);
        if (!ev || ev->system != "kvm") return t;
        for (const Kept& k : kKept)
            if (ev->name == k.name) t.kept = &k;
        if (!t.kept) return t;
        const uint64_t need = perf::kSampleTid | perf::kSampleTime | perf::kSampleCpu | perf::kSampleRaw;
        if ((a.sample_type & need) != need)
            throw perf::FormatError(fmt::format("{}'s samples lack what the report needs (TID, TIME, CPU and RAW; "
                                                "its sample_type is {:#x})", t.name, a.sample_type));
        for (size_t i = 0; i < 4; ++i) {
            const char* f = t.kept->fields[i];
            if (!*f) continue;
            t.f[i] = ev->field(f);
            if (!t.f[i] && i < 3)
                throw perf::FormatError(fmt::format("{}'s format has no {} field", t.name, f));
        }
        return t;
    }

    [[noreturn, gnu::noinline]] static void short_raw(const Tp& t, const perf::Record& r, const perf::Sample& s) {
        throw perf::FormatError(fmt::format("a {} sample at byte {} has {} bytes of raw data, fewer than its format",
                                            t.name, r.offset, s.raw.size()));
    }

    void sample(const perf::Record& r) {
        ++samples_;
        size_t index = reader_.attr_of(r);
        const perf::Attr& a = reader_.attrs()[index];
        const Tp& t = tp_of(index, a);
        if (!t.kept) {
            ++result_.skipped[t.name];
            return;
        }
        perf::Sample s;
        reader_.sample(r, a, s);
        auto get = [&](size_t i) -> uint64_t {
            if (!t.f[i]) return 0;
            auto v = perf::read_field(s.raw, *t.f[i]);
            if (!v) short_raw(t, r, s);
            return *v;
        };
        if (s.cpu > UINT16_MAX) throw perf::FormatError(fmt::format("a sample at byte {} on cpu {}", r.offset, s.cpu));
        Event e{};
        e.ts_ns = s.time;
        e.tid = s.tid;
        e.cpu = uint16_t(s.cpu);
        e.type = t.kept->type;
        e.a = get(0);
        e.b = get(1);
        if (e.type == EventType::Exit) {
            e.flags = get(2) == kIsaSvm;
            if (isa_.empty()) isa_ = e.flags ? "svm" : "vmx";
        } else {
            e.flags = uint8_t(get(2));
        }
        if (t.f[3]) e.vcpu = uint32_t(get(3));
        else e.pad = kUnresolvedVcpu;
        if (order_ == Order::Thread) return in_file_order(e);
        max_time_ = std::max(max_time_, e.ts_ns);
        pending_.push_back(e);
    }

    // What the import keeps per thread, with the last thread's kept at hand:
    // events come in runs of one thread's.
    struct Thread {
        uint64_t last_ts = 0;          // Order::Thread: its last event's time
        std::optional<uint32_t> vcpu;  // of its last entry or exit
    };
    Thread& thread(uint32_t tid) {
        if (!cached_ || tid != cached_tid_) cached_tid_ = tid, cached_ = &threads_[tid];  // never moved by a rehash
        return *cached_;
    }

    void in_file_order(Event& e) {
        Thread& th = thread(e.tid);
        if (e.ts_ns < th.last_ts) {
            out_of_order_ = true;
            return;
        }
        th.last_ts = e.ts_ns;
        emit(e);
    }

    void emit(Event e) {
        Thread& th = thread(e.tid);
        if (e.pad == kUnresolvedVcpu) {
            e.vcpu = th.vcpu.value_or(0);
            e.pad = 0;
        } else {
            th.vcpu = e.vcpu;
        }
        ++result_.events;
        sink_(e);
    }

    // Writes out, in time order (file order among equal times), the events
    // at or before `limit`.
    void flush(uint64_t limit) {
        std::stable_sort(pending_.begin(), pending_.end(),
                         [](const Event& x, const Event& y) { return x.ts_ns < y.ts_ns; });
        auto end = std::upper_bound(pending_.begin(), pending_.end(), limit,
                                    [](uint64_t l, const Event& e) { return l < e.ts_ns; });
        for (auto it = pending_.begin(); it != end; ++it) emit(*it);
        pending_.erase(pending_.begin(), end);
    }

    std::string path_;
    perf::Reader reader_;
    Order order_;
    Sink sink_;
    std::unique_ptr<perf::TracingData> tracing_;
    std::vector<std::optional<Tp>> tps_;  // by attribute index
    std::vector<Event> pending_;
    std::unordered_map<uint32_t, Thread> threads_;
    uint32_t cached_tid_ = 0;
    Thread* cached_ = nullptr;
    bool out_of_order_ = false;
    std::string isa_;
    uint64_t max_time_ = 0, round_limit_ = 0, samples_ = 0;
    PerfEvents result_;
};

} // namespace

bool is_perf_data(const std::string& path) {
    char magic[8] = {};
    sys::Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));  // O_NONBLOCK: a FIFO is not waited on
    return fd.valid() && ::read(fd.get(), magic, 8) == 8 &&
           (std::memcmp(magic, "PERFILE2", 8) == 0 || std::memcmp(magic, "2ELIFREP", 8) == 0);
}

void check_perf_data(const std::string& perf_data) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(perf_data, ec))
        throw InputError(fmt::format("cannot read {}: no such regular file", perf_data));
    if (!is_perf_data(perf_data))
        throw InputError(fmt::format("{}: not a perf.data file (no PERFILE2 magic)", perf_data));
}

template <class F> auto typed_errors(const std::string& perf_data, F&& f) {
    try {
        return f();
    } catch (const perf::FormatError& e) {
        throw InputError(fmt::format("{}: {}", perf_data, e.what()));
    } catch (const std::system_error& e) {
        throw HostError(fmt::format("cannot read {}: {}", perf_data, e.what()));
    }
}

PerfEvents import_perf_data(const std::string& perf_data, const std::string& out) {
    return typed_errors(perf_data, [&] {
        std::unique_ptr<profile::TraceWriter> w;
        std::vector<Event> first;  // until the first exit names the header's ISA (or 64 Ki events came without)
        Events* src = nullptr;
        auto start = [&](const std::string& isa_seen) {
            profile::TraceHeader h;
            h.tracepoints = src->kvm_tracepoints();
            h.isa = isa_seen.empty() ? "unknown" : isa_seen;
            h.cpu_model = "unknown (imported from perf.data)";
            h.backend = isa_seen == "svm" ? "kvm_amd" : isa_seen == "vmx" ? "kvm_intel" : "";
            w = std::make_unique<profile::TraceWriter>(out, h);
            for (const Event& e : first) w->add(e);
            first.clear();
        };
        Events ev(perf_data, Events::Order::Time, [&](const Event& e) {
            if (w) return w->add(e);
            first.push_back(e);
            if (e.type == EventType::Exit) start(e.flags ? "svm" : "vmx");
            else if (first.size() >= 65536) start("");
        });
        src = &ev;
        ev.run();
        if (!w) start("");
        const PerfEvents& r = ev.result();
        w->set_lost_events(r.lost);
        w->finish();
        return r;
    });
}

profile::Report analyze_perf_data(const std::string& perf_data, const profile::Options& opt) {
    return typed_errors(perf_data, [&] {
        auto pass = [&](Events::Order order, profile::Analysis& a, bool count) {
            Events ev(perf_data, order, [&](const Event& e) { count ? a.count(e) : a.add(e); });
            return ev.run() ? std::optional<PerfEvents>(ev.result()) : std::nullopt;
        };
        auto a = std::make_unique<profile::Analysis>(opt);
        auto order = Events::Order::Thread;
        auto r = pass(order, *a, false);
        if (!r) {  // a thread's events out of time order in the file: perf's order, then
            order = Events::Order::Time;
            a = std::make_unique<profile::Analysis>(opt);
            r = pass(order, *a, false);
        }
        if (a->degraded()) pass(order, *a, true);
        std::string backend = r->isa == "svm" ? "kvm_amd" : r->isa == "vmx" ? "kvm_intel" : "";
        return a->finish(r->isa.empty() ? "unknown" : r->isa, r->lost, backend, &r->tracepoints);
    });
}

} // namespace eb::ingest
