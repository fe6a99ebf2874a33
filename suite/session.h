// The host side of one test's guest protocol: answers ucalls, sizes batches,
// and snapshots counters around every measured batch. Runs on the vCPU thread.
// It sees the machine only through an Executor, so unit tests drive it with a
// fake one.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "guest/abi.h"
#include "suite/executor.h"
#include "suite/fixture.h"
#include "suite/measure_hooks.h"
#include "suite/result.h"
#include "suite/verify.h"
#include "vmm/io_bus.h"

namespace eb::suite {

// The failure detail of a guest's kFail: file:line, the check's text and the
// values it compared (GUEST_CHECK_EQ), then its message.
std::string failed_check_text(const abi::Mailbox& mb);

class Session {
public:
    // `body_vcpus`: how many vCPUs run each batch (all of them for parallel tests).
    Session(Executor& x, const RunSettings& s, double tsc_mhz, uint32_t body_vcpus = 1,
            Fixture* fixture = nullptr, uint64_t max_iterations = 0);

    vmm::Action on_ucall(const vmm::Access& a);
    // Told when each measured batch starts and ends; nullptr for none.
    void set_hooks(MeasureHooks* h) { hooks_ = h; }
    // Adaptive sizing starts at `n` (an earlier session's calibrated size)
    // instead of 64; before the guest is ready. The first batch is still
    // discarded, and doubling resumes if it falls short of the time goal.
    void reuse_batch(uint64_t n) { reuse_ = n; }
    // The reused size took the time goal: this session did not calibrate.
    bool batch_reused() const { return reuse_ && reusing_; }

    // Monotonic ns of the last batch (or of start-up); the watchdog compares
    // against it. Other ucalls do not count: a guest stuck re-sending them is hung.
    int64_t last_progress_ns() const { return last_progress_.load(std::memory_order_relaxed); }

    enum class End { Running, Done, Failed, Exception, BadUcall, Diverged, Skipped };
    // Any vCPU thread may end the session; the first to do so is kept.
    End end() const;
    std::string failure() const;
    uint32_t failed_vcpu() const;  // the vCPU whose ucall ended the session
    // The measured batches' cycles per iteration; never a batch the hooks perturbed.
    const std::vector<double>& samples() const { return samples_; }
    // Measured batches the hooks perturbed and the results left out.
    uint32_t set_aside() const { return set_aside_; }
    uint64_t iterations() const { return n_; }
    // Iterations every vCPU completed in all batches, warm-up included.
    uint64_t all_iterations() const { return all_iterations_; }
    const Observed& observed() const { return obs_; }
    const std::vector<double>& ipi_latency() const { return ipi_latency_; }
    // CLOCK_MONOTONIC ns from each measured batch's start to its end, as the host saw them.
    const std::vector<std::pair<int64_t, int64_t>>& batch_windows() const { return windows_; }
    std::vector<double>& per_exit() { return per_exit_; }
    // vCPU 0's view after the knobs, once the guest reported ready.
    const std::optional<abi::GuestState>& guest_state() const { return state_; }
    // The wall-time account, monotonic ns: when the guest first reported
    // ready (0: never), and the summed durations of the discarded (warm-up,
    // calibration, set aside) and the measured batches, host clock from the
    // re-entry to the ucall that ends each.
    int64_t ready_ns() const { return ready_ns_; }
    int64_t warmup_ns() const { return warmup_ns_; }
    int64_t measured_ns() const { return measured_ns_; }

private:
    struct Snapshot {
        HostCounters host;
        uint64_t irqs = 0, ipi_lat_sum = 0, ipi_lat_count = 0;  // all vCPUs' mailboxes
    };
    Snapshot snapshot() const;
    void accumulate(const Snapshot& from, const Snapshot& to);
    // Each returns Stop when the session has ended.
    vmm::Action on_batch_done(const abi::Mailbox& mb);
    vmm::Action stop(End why, std::string failure, uint32_t vcpu = 0);

    Executor& x_;
    MeasureHooks* hooks_ = nullptr;
    bool hooked_batch_ = false;  // hooks_ saw a batch start and not yet its end
    bool perturbed_ = false;     // the running batch is hooks_' (sampled): no result of it
    uint32_t hooked_batches_ = 0;  // measured batches the hooks were told of
    uint32_t set_aside_ = 0;       // perturbed batches left out of the results
    bool after_set_aside_ = false; // the last measured batch was set aside
    RunSettings settings_;
    double goal_ticks_;
    uint32_t body_vcpus_;
    Fixture* fixture_;
    uint64_t max_n_;
    std::atomic<int64_t> last_progress_;
    bool measuring_ = false;
    uint32_t extra_warmup_ = 0;  // --warmup batches discarded so far
    uint64_t n_ = 0;
    uint64_t all_iterations_ = 0;
    uint64_t reuse_ = 0;        // an earlier session's batch size; 0: calibrate from 64
    bool reusing_ = false;      // sized from reuse_, no doubling since
    bool shrunk_ = false;       // a batch took over 2 goals and the size was cut to the goal, once
    int64_t ready_ns_ = 0, warmup_ns_ = 0, measured_ns_ = 0;

    Snapshot prev_;
    std::vector<double> samples_;
    std::vector<double> ipi_latency_;
    std::vector<std::pair<int64_t, int64_t>> windows_;
    int64_t batch_start_ns_ = 0;
    std::vector<double> per_exit_;
    std::optional<abi::GuestState> state_;
    Observed obs_;
    mutable std::mutex end_mu_;  // vCPU threads end the session, the runner reads it
    End end_ = End::Running;
    std::string failure_;
    uint32_t failed_vcpu_ = 0;
};

int64_t monotonic_ns();

} // namespace eb::suite
