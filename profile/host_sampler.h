// Samples chosen threads of this process (the vCPU threads) with call chains,
// kernel and user side, through perf_event_open directly: one sampling event
// per thread (pid = its tid, cpu = -1), each with its own ring buffer: the
// hardware cycles event where the PMU offers it (its overflow is an NMI, so
// it sees code that runs with interrupts off), else cpu-clock (an hrtimer:
// blind there). Sampling runs only between enable() and disable().
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <sys/types.h>
#include <thread>
#include <vector>

#include "profile/perf_ring.h"
#include "sys/error.h"
#include "sys/fd.h"

namespace eb::profile {

// perf_event_open or its ring refused; what() is one line naming the cause
// (perf_event_paranoid and its value, a missing event, the mlock limit).
struct SamplerError : HostError {
    using HostError::HostError;
};

// The one-line reason for perf_event_open's errno `err`.
std::string open_error_text(int err, const std::string& paranoid_value);

enum class SampleEvent { Cycles, CpuClock };
const char* sample_event_name(SampleEvent e);  // "cycles", "cpu-clock"

class HostSampler {
public:
    using Sink = std::function<void(const HostSample&)>;
    // `sink` sees every sample, from a reader thread or from drain(), one at a time.
    HostSampler(uint32_t frequency_hz, Sink sink, SampleEvent event = SampleEvent::CpuClock);
    ~HostSampler();  // disables, drains and closes everything
    HostSampler(const HostSampler&) = delete;
    HostSampler& operator=(const HostSampler&) = delete;

    // Opens an event for every thread in `tids` not sampled yet (0s are
    // skipped: a thread not started), then enables them all. Throws SamplerError.
    void enable(const std::vector<pid_t>& tids);
    void disable();
    // Reads every ring out (the reader thread also does when one is a quarter full).
    void drain();
    RingCounts counts() const;

    // Opens and closes one event on the calling thread: throws SamplerError
    // when sampling could not work, before anything long runs.
    static void probe(uint32_t frequency_hz);
    // Hardware cycles where this thread can sample them, else cpu-clock
    // (probed: throws SamplerError when neither works); `why_not_cycles`
    // gets the reason for the fallback.
    static SampleEvent choose(uint32_t frequency_hz, std::string& why_not_cycles);

private:
    struct Ring {
        sys::Fd fd;
        pid_t tid = 0;
        void* map = nullptr;
        size_t map_bytes = 0;
    };
    void drain_locked();
    void reader_loop();

    uint64_t period_ns_;
    uint32_t hz_;
    SampleEvent event_;
    Sink sink_;
    mutable std::mutex mu_;  // rings_, counts_ and calls into sink_
    std::vector<Ring> rings_;
    RingCounts counts_;
    std::atomic<bool> stop_{false};
    std::thread reader_;
};

} // namespace eb::profile
