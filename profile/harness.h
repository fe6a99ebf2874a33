// Separates the harness's own exits from a test's: the guest's messages to
// the VMM are port I/O to one port, at batch boundaries, and must not count
// among the test's exit reasons.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "profile/event.h"

namespace eb::profile {

struct HarnessSplit {
    std::vector<Event> test;        // every event that is not the harness's
    uint64_t harness_exits = 0;     // kvm_pio hits on the port
    std::vector<uint64_t> harness_ns;  // kvm_exit -> kvm_entry of those, where both fired
};

// Events in time order. A kvm_exit whose handling (up to its thread's next
// kvm_entry) includes kvm_pio on `port` is the harness's, with all its events;
// without kvm_exit (a backend where it never fires) the kvm_pio and the
// kvm_userspace_exit that follows it on its thread are.
HarnessSplit split_harness(std::span<const Event> events, uint64_t port);

} // namespace eb::profile
