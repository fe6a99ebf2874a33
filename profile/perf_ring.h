// The records a perf_event_open ring buffer holds, and reading them out of
// the ring without losing one: the kernel writes at data_head, we consume up
// to it and hand the space back through data_tail. Pure functions over
// bytes, so tests feed synthetic rings.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace eb::profile {

// The sample_type the host sampler asks for: IP | TID | PERIOD | CALLCHAIN.
inline constexpr uint64_t kHostSampleType = (1u << 0) | (1u << 1) | (1u << 8) | (1u << 5);

// Where a sample was taken (perf_event_header.misc & CPUMODE_MASK).
enum class CpuMode { Unknown, Kernel, User, Hypervisor, GuestKernel, GuestUser };
CpuMode cpu_mode(uint16_t misc);

struct HostSample {
    uint32_t pid = 0, tid = 0;
    uint64_t ip = 0, period = 0;
    CpuMode mode = CpuMode::Unknown;
    // Leaf first, the kernel's context markers (PERF_CONTEXT_*) removed.
    std::vector<uint64_t> chain;
    uint32_t kernel_frames = 0;  // the first `kernel_frames` of chain are kernel addresses
};

// What a ring held besides samples.
struct RingCounts {
    uint64_t samples = 0;
    uint64_t lost = 0;       // samples the kernel dropped (PERF_RECORD_LOST's count)
    uint64_t throttled = 0;  // PERF_RECORD_THROTTLE: the kernel lowered the rate
    uint64_t malformed = 0;  // a sample shorter than its own fields say
    uint64_t other = 0;
};

// One record (its perf_event_header included). A sample comes back; anything
// else is counted in `counts`.
std::optional<HostSample> parse_record(std::span<const uint8_t> record, RingCounts& counts);

// Reads the records between `tail` and `head` (free-running byte counters) of
// a ring whose data area is `ring` (a power of two in size), a record that
// wraps around the end copied out whole; returns the new tail, which is
// `head` unless a header is torn (then the tail stops before it).
uint64_t read_ring(std::span<const uint8_t> ring, uint64_t tail, uint64_t head,
                   const std::function<void(std::span<const uint8_t>)>& record);

} // namespace eb::profile
