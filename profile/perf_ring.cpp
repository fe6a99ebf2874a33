#include "profile/perf_ring.h"

#include <cstring>
#include <linux/perf_event.h>

namespace eb::profile {

namespace {

// A cursor over a record's fields; a read past the end marks it short.
struct Reader {
    std::span<const uint8_t> bytes;
    size_t at = 0;
    bool short_ = false;

    uint64_t u64() {
        uint64_t v = 0;
        if (at + 8 > bytes.size()) {
            short_ = true;
            return 0;
        }
        std::memcpy(&v, bytes.data() + at, 8);
        at += 8;
        return v;
    }
};

// Values at or above PERF_CONTEXT_MAX (-4095) are not addresses but say
// whose addresses follow.
bool is_context(uint64_t v) { return v >= static_cast<uint64_t>(PERF_CONTEXT_MAX); }

std::optional<HostSample> parse_sample(std::span<const uint8_t> record, uint16_t misc, RingCounts& counts) {
    Reader r{record, sizeof(perf_event_header)};
    HostSample s;
    s.mode = cpu_mode(misc);
    s.ip = r.u64();
    uint64_t pid_tid = r.u64();
    s.pid = static_cast<uint32_t>(pid_tid);
    s.tid = static_cast<uint32_t>(pid_tid >> 32);
    s.period = r.u64();
    uint64_t nr = r.u64();
    if (r.short_ || nr > (record.size() - r.at) / 8) {
        ++counts.malformed;
        return std::nullopt;
    }
    bool in_kernel = false;
    for (uint64_t i = 0; i < nr; ++i) {
        uint64_t v = r.u64();
        if (is_context(v)) {
            in_kernel = v == static_cast<uint64_t>(PERF_CONTEXT_KERNEL);
            continue;
        }
        s.chain.push_back(v);
        if (in_kernel) s.kernel_frames = static_cast<uint32_t>(s.chain.size());
    }
    ++counts.samples;
    return s;
}

} // namespace

CpuMode cpu_mode(uint16_t misc) {
    switch (misc & PERF_RECORD_MISC_CPUMODE_MASK) {
    case PERF_RECORD_MISC_KERNEL: return CpuMode::Kernel;
    case PERF_RECORD_MISC_USER: return CpuMode::User;
    case PERF_RECORD_MISC_HYPERVISOR: return CpuMode::Hypervisor;
    case PERF_RECORD_MISC_GUEST_KERNEL: return CpuMode::GuestKernel;
    case PERF_RECORD_MISC_GUEST_USER: return CpuMode::GuestUser;
    default: return CpuMode::Unknown;
    }
}

std::optional<HostSample> parse_record(std::span<const uint8_t> record, RingCounts& counts) {
    perf_event_header h{};
    if (record.size() < sizeof h) {
        ++counts.malformed;
        return std::nullopt;
    }
    std::memcpy(&h, record.data(), sizeof h);
    switch (h.type) {
    case PERF_RECORD_SAMPLE: return parse_sample(record, h.misc, counts);
    case PERF_RECORD_LOST: {
        Reader r{record, sizeof h};
        r.u64();  // the event's id
        uint64_t lost = r.u64();
        if (r.short_) ++counts.malformed;
        else counts.lost += lost;
        return std::nullopt;
    }
    case PERF_RECORD_THROTTLE: ++counts.throttled; return std::nullopt;
    default: ++counts.other; return std::nullopt;
    }
}

uint64_t read_ring(std::span<const uint8_t> ring, uint64_t tail, uint64_t head,
                   const std::function<void(std::span<const uint8_t>)>& record) {
    const uint64_t mask = ring.size() - 1;
    std::vector<uint8_t> copy;
    while (head - tail >= sizeof(perf_event_header)) {
        perf_event_header h{};
        for (size_t i = 0; i < sizeof h; ++i)  // the header itself may wrap
            reinterpret_cast<uint8_t*>(&h)[i] = ring[(tail + i) & mask];
        if (h.size < sizeof h || h.size > head - tail) break;  // torn: not written in full yet
        uint64_t off = tail & mask;
        if (off + h.size <= ring.size()) {
            record(ring.subspan(off, h.size));
        } else {
            size_t first = ring.size() - off;
            copy.assign(ring.begin() + static_cast<ptrdiff_t>(off), ring.end());
            copy.insert(copy.end(), ring.begin(), ring.begin() + static_cast<ptrdiff_t>(h.size - first));
            record(copy);
        }
        tail += h.size;
    }
    return tail;
}

} // namespace eb::profile
