// One test's host profile: the sampled stacks (named, root first), what they
// say per function, and how a sample share becomes a cost per iteration.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profile/host_counter.h"
#include "profile/perf_ring.h"

namespace eb::profile {

// The frame of a sample taken while the vCPU was in guest mode: the host
// kernel gives no host call chain for it.
inline constexpr const char* kGuestFrame = "[guest]";
// The same under cpu-clock: its hrtimer cannot interrupt host code that runs
// with interrupts off (from VM exit to local_irq_enable() in vcpu_enter_guest:
// the BHB clear, the SPEC_CTRL restore, the fastpath MSR writes), and KVM
// marks the interrupt that exits the guest as the guest's.
inline constexpr const char* kGuestOrIrqsOffFrame = "[guest mode, or host code with interrupts off]";

struct TestHostProfile {
    std::string test;
    std::map<std::vector<std::string>, uint64_t> stacks;  // root-first frames -> samples
    uint64_t samples = 0;
    RingCounts counts;  // lost, throttled, malformed records
    uint32_t frequency_hz = 0;
    std::string event = "cpu-clock";  // the sampling event (sample_event_name)
    std::string fallback_why;         // why not hardware cycles, under cpu-clock
    uint32_t threads = 0;  // vCPU threads sampled
    // Host-only instructions and cycles over the unsampled batches, or why none.
    std::optional<HostCounts> host_counts;
    std::string counts_unavailable;
    // The measured batches, alternately sampled and not (the overhead's reference).
    struct Batches {
        uint64_t count = 0, iterations = 0;
        double cycles = 0;
        double cycles_per_iteration() const { return iterations ? cycles / double(iterations) : 0; }
    } sampled, plain;
    double sampled_seconds = 0;  // wall time the sampled batches took
    uint64_t max_batch_iterations = 0;

    void add(const std::vector<std::string>& root_first, uint64_t n = 1);
    void merge(const TestHostProfile& o);  // another session of the same test
};

struct FunctionShare {
    std::string name;
    uint64_t self = 0;   // samples with it as the leaf
    uint64_t total = 0;  // samples with it anywhere in the stack (once per sample)
};
// Every function, by `total` then `self`, largest first.
std::vector<FunctionShare> function_shares(const TestHostProfile& p);

// A figure and its standard error.
struct Estimate {
    double value = 0, error = 0;
};
// `k` of `n` samples, as a part of `cost`: the share times the cost, with
// the binomial standard error of the share, sqrt(p(1-p)/n), scaled alike.
Estimate share_of(uint64_t k, uint64_t n, double cost);

// Folded stacks, "test;root;...;leaf count" a line, every test's; a frame's
// own ';' and line breaks would break the format and become ':' and ' '.
std::string folded_stacks(const std::vector<TestHostProfile>& profiles);
// One frame as folded stacks hold it: its ';' becomes ':', a line break ' '.
std::string folded_frame(std::string frame);

} // namespace eb::profile
