// The VMM's time per userspace exit, from KVM_RUN's return to the next
// KVM_RUN, kept by each vCPU thread in a fixed log-linear histogram: no
// allocation, no lock and no locked instruction on the exit path. Other
// threads read it between batches.
#pragma once
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace eb::vmm {

// Cycles below 64 exactly; above, 32 buckets per power of two (at most 3%
// wide) up to 2^41 cycles, where the last bucket takes the rest.
inline constexpr size_t kExact = 64, kSub = 32, kTopExponent = 41;
inline constexpr size_t kTimeBuckets = kExact + (kTopExponent - 6 + 1) * kSub;

constexpr size_t time_bucket(uint64_t cycles) {
    if (cycles < kExact) return size_t(cycles);
    size_t e = 63 - size_t(__builtin_clzll(cycles));  // >= 6
    if (e > kTopExponent) return kTimeBuckets - 1;
    return kExact + (e - 6) * kSub + size_t((cycles >> (e - 5)) & (kSub - 1));
}
// The smallest value in bucket b, and the one past its largest.
uint64_t time_bucket_low(size_t b);
uint64_t time_bucket_high(size_t b);

// Totals over some exits: what a batch's are, as the difference of two.
struct ExitTimeTotals {
    uint64_t exits = 0;
    uint64_t vmm_cycles = 0;      // KVM_RUN return -> next KVM_RUN, summed
    std::array<uint64_t, kTimeBuckets> hist{};  // of the vmm cycles

    ExitTimeTotals& operator+=(const ExitTimeTotals& o);
    ExitTimeTotals operator-(const ExitTimeTotals& o) const;
    // The q-quantile (0..1) of the vmm cycles, interpolated inside its bucket; 0 without exits.
    double quantile(double q) const;
    double vmm_mean() const { return exits ? double(vmm_cycles) / double(exits) : 0; }
};

class ExitTimes {
public:
    // The vCPU thread only: relaxed loads and stores, never a locked RMW.
    void record(uint64_t vmm_cycles) {
        bump(exits_, 1);
        bump(vmm_, vmm_cycles);
        bump(hist_[time_bucket(vmm_cycles)], 1);
    }
    // Any thread; consistent when the vCPU is not in a userspace exit.
    ExitTimeTotals read() const;

private:
    static void bump(std::atomic<uint64_t>& a, uint64_t by) {
        a.store(a.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
    }
    std::atomic<uint64_t> exits_{0}, vmm_{0};
    std::array<std::atomic<uint64_t>, kTimeBuckets> hist_{};
};

} // namespace eb::vmm
