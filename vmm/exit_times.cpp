#include "vmm/exit_times.h"

#include <algorithm>
#include <cmath>

namespace eb::vmm {

uint64_t time_bucket_low(size_t b) {
    if (b < kExact) return b;
    size_t e = 6 + (b - kExact) / kSub, m = (b - kExact) % kSub;
    return (uint64_t(1) << e) + (uint64_t(m) << (e - 5));
}

uint64_t time_bucket_high(size_t b) {
    if (b < kExact) return b + 1;
    if (b == kTimeBuckets - 1) return uint64_t(1) << (kTopExponent + 1);
    size_t e = 6 + (b - kExact) / kSub;
    return time_bucket_low(b) + (uint64_t(1) << (e - 5));
}

ExitTimeTotals& ExitTimeTotals::operator+=(const ExitTimeTotals& o) {
    exits += o.exits;
    vmm_cycles += o.vmm_cycles;
    for (size_t i = 0; i < kTimeBuckets; ++i) hist[i] += o.hist[i];
    return *this;
}

ExitTimeTotals ExitTimeTotals::operator-(const ExitTimeTotals& o) const {
    ExitTimeTotals d;
    d.exits = exits - o.exits;
    d.vmm_cycles = vmm_cycles - o.vmm_cycles;
    for (size_t i = 0; i < kTimeBuckets; ++i) d.hist[i] = hist[i] - o.hist[i];
    return d;
}

double ExitTimeTotals::quantile(double q) const {
    if (!exits) return 0;
    // The rank of the sample sought, 0-based, as a fraction into its bucket.
    double rank = std::clamp(q, 0.0, 1.0) * double(exits - 1);
    uint64_t below = 0;
    for (size_t b = 0; b < kTimeBuckets; ++b) {
        if (!hist[b]) continue;
        if (rank < double(below + hist[b])) {
            if (b < kExact) return double(b);
            double f = (rank - double(below) + 0.5) / double(hist[b]);
            return double(time_bucket_low(b)) + f * double(time_bucket_high(b) - time_bucket_low(b));
        }
        below += hist[b];
    }
    return double(time_bucket_low(kTimeBuckets - 1));
}

ExitTimeTotals ExitTimes::read() const {
    ExitTimeTotals t;
    t.exits = exits_.load(std::memory_order_relaxed);
    t.vmm_cycles = vmm_.load(std::memory_order_relaxed);
    for (size_t i = 0; i < kTimeBuckets; ++i) t.hist[i] = hist_[i].load(std::memory_order_relaxed);
    return t;
}

} // namespace eb::vmm
