#include "ingest/perf_data.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ingest/perf_file.h"
#include "ingest/perf_tracing.h"
#include "profile/trace_file.h"
#include "sys/error.h"

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

class Import {
public:
    Import(const std::string& path, const std::string& out) : path_(path), out_(out), reader_(path) {}

    PerfDataImport run() {
        perf::Record r;
        while (reader_.next(r)) record(r);
        flush(UINT64_MAX);
        if (!writer_ || writer_->count() == 0)
            throw InputError(fmt::format("{}: no kvm tracepoint samples among its {} samples (was it recorded "
                                         "with 'perf kvm stat record'?)", path_, samples_));
        writer_->set_lost_events(result_.lost);
        result_.events = writer_->count();
        result_.isa = isa_;
        writer_->finish();
        result_.pipe_mode = reader_.pipe_mode();
        return result_;
    }

private:
    void record(const perf::Record& r) {
        switch (r.type) {
        case perf::kRecordTracingData: tracing_ = std::make_unique<perf::TracingData>(r.body), tps_.clear(); break;
        case perf::kRecordSample: sample(r); break;
        case perf::kRecordFinishedRound: flush(round_limit_), round_limit_ = max_time_; break;
        case perf::kRecordLost: result_.lost += r.body.size() >= 16 ? load(r.body.data() + 8) : 0; break;
        case 13 /* LOST_SAMPLES */: result_.lost += r.body.size() >= 8 ? load(r.body.data()) : 0; break;
        default: break;
        }
    }

    static uint64_t load(const uint8_t* p) { uint64_t v; std::memcpy(&v, p, 8); return v; }

    const Tp& tp_of(const perf::Attr& a) {
        auto [it, fresh] = tps_.try_emplace(&a);
        if (!fresh) return it->second;
        Tp& t = it->second;
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

    void sample(const perf::Record& r) {
        ++samples_;
        const perf::Attr& a = reader_.attr_of(r);
        const Tp& t = tp_of(a);
        if (!t.kept) {
            ++result_.skipped[t.name];
            return;
        }
        perf::Sample s;
        reader_.sample(r, a, s);
        auto get = [&](size_t i) -> uint64_t {
            if (!t.f[i]) return 0;
            auto v = perf::read_field(s.raw, *t.f[i]);
            if (!v) throw perf::FormatError(fmt::format("a {} sample at byte {} has {} bytes of raw data, fewer "
                                                        "than its format", t.name, r.offset, s.raw.size()));
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
        max_time_ = std::max(max_time_, e.ts_ns);
        pending_.push_back(e);
    }

    // Writes out, in time order (file order among equal times), the events
    // at or before `limit`.
    void flush(uint64_t limit) {
        std::stable_sort(pending_.begin(), pending_.end(),
                         [](const Event& x, const Event& y) { return x.ts_ns < y.ts_ns; });
        auto end = std::upper_bound(pending_.begin(), pending_.end(), limit,
                                    [](uint64_t l, const Event& e) { return l < e.ts_ns; });
        if (end == pending_.begin()) return;
        if (!writer_) {
            profile::TraceHeader h;
            h.isa = isa_.empty() ? "unknown" : isa_;
            h.cpu_model = "unknown (imported from perf.data)";
            h.backend = isa_ == "svm" ? "kvm_amd" : isa_ == "vmx" ? "kvm_intel" : "";
            for (const perf::Attr& a : reader_.attrs()) {  // the kvm tracepoints recorded
                auto ev = a.type == perf::kAttrTypeTracepoint && tracing_ ? tracing_->event(a.config) : std::nullopt;
                if (ev && ev->system == "kvm") h.tracepoints.push_back(ev->name);
            }
            writer_ = std::make_unique<profile::TraceWriter>(out_, h);
        }
        for (auto it = pending_.begin(); it != end; ++it) {
            Event e = *it;
            if (e.pad == kUnresolvedVcpu) {
                auto v = vcpu_of_.find(e.tid);
                e.vcpu = v == vcpu_of_.end() ? 0 : v->second;
                e.pad = 0;
            } else {
                vcpu_of_[e.tid] = e.vcpu;
            }
            writer_->add(e);
        }
        pending_.erase(pending_.begin(), end);
    }

    std::string path_, out_;
    perf::Reader reader_;
    std::unique_ptr<perf::TracingData> tracing_;
    std::unordered_map<const perf::Attr*, Tp> tps_;
    std::vector<Event> pending_;
    std::unordered_map<uint32_t, uint32_t> vcpu_of_;
    std::unique_ptr<profile::TraceWriter> writer_;
    std::string isa_;
    uint64_t max_time_ = 0, round_limit_ = 0, samples_ = 0;
    PerfDataImport result_;
};

} // namespace

void check_perf_data(const std::string& perf_data) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(perf_data, ec))
        throw InputError(fmt::format("cannot read {}: no such regular file", perf_data));
    char magic[8] = {};
    std::ifstream(perf_data, std::ios::binary).read(magic, 8);
    if (std::memcmp(magic, "PERFILE2", 8) != 0 && std::memcmp(magic, "2ELIFREP", 8) != 0)
        throw InputError(fmt::format("{}: not a perf.data file (no PERFILE2 magic)", perf_data));
}

PerfDataImport import_perf_data(const std::string& perf_data, const std::string& out) {
    check_perf_data(perf_data);
    try {
        Import im(perf_data, out);
        return im.run();
    } catch (const perf::FormatError& e) {
        throw InputError(fmt::format("{}: {}", perf_data, e.what()));
    } catch (const std::system_error& e) {
        throw HostError(fmt::format("cannot read {}: {}", perf_data, e.what()));
    }
}

} // namespace eb::ingest
