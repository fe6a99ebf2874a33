// Host-only instructions and cycles of chosen threads (the vCPU threads),
// counted with perf_event_open: exclude_guest, kernel and user. Nearly
// deterministic where sampling is not: "BHB clear against TSX abort" or
// "fastpath against full path" shows in the instructions a batch costs the host.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "sys/fd.h"

namespace eb::profile {

struct HostCounts {
    uint64_t instructions = 0, cycles = 0;
    uint64_t iterations = 0, batches = 0;  // what they were counted over
    HostCounts& operator+=(const HostCounts& o);
};

// nullopt when a hardware PMU counts here; else one line, "unavailable: no
// PMU" where perf_event_open has no hardware event (ENOENT, ENODEV, EOPNOTSUPP).
std::optional<std::string> host_counting_unavailable();
// The line for perf_event_open's errno `err` on a hardware counter.
std::string counting_error_text(int err);

class HostCounter {
public:
    // Opens the counters of the threads not counted yet (0s skipped), resets
    // and enables them all. Throws std::runtime_error with one line.
    void start(const std::vector<pid_t>& tids);
    // Disables them; adds what they counted since start() to `into`.
    void stop(HostCounts& into, uint64_t iterations);

private:
    struct Thread {
        pid_t tid = 0;
        sys::Fd cycles, instructions;
    };
    std::vector<Thread> threads_;
};

} // namespace eb::profile
