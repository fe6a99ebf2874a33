// `profile live`'s loop: kvm tracepoints of the chosen processes, analyzed
// per interval with the counters reset each time (as perf kvm stat live),
// or, with a bound, each exit slower than it as its kvm_entry arrives.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profile/analyze.h"

namespace eb::lab {

struct LiveSpec {
    std::vector<int> pids;
    bool all = false;
    double interval_s = 1;
    double slower_than_us = -1;  // >= 0: report slow exits instead of intervals
    bool once = false;           // one interval, then return
    profile::Options opt;
};

struct SlowExit {
    uint32_t tid = 0, vcpu = 0;
    std::string reason;
    double us = 0;
};

struct LiveObserver {
    std::function<void(const profile::Report&, double elapsed_s)> interval;  // not with slower_than_us
    std::function<void(const SlowExit&)> slow;
};

// Until `interrupt` (or one interval with `once`). Returns the events the
// ring buffer lost. The recorder's errors are typed (profile/record.h).
uint64_t watch_exits(const LiveSpec& spec, const std::atomic<bool>& interrupt, const LiveObserver& obs);

// Pairs kvm_exit with the next kvm_entry of the same thread.
class SlowExits {
public:
    SlowExits(std::string isa, double than_us) : isa_(std::move(isa)), than_us_(than_us) {}
    // The exit this event ends, when it took longer than the bound.
    std::optional<SlowExit> add(const profile::Event& e);

private:
    std::string isa_;
    double than_us_;
    std::map<uint32_t, std::pair<uint64_t, uint64_t>> open_;  // tid -> (ts, reason)
};

} // namespace eb::lab
