// Exit verification: compare the exits a test expects with what the host's
// counters saw. Pure, so the rules are unit-tested.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "suite/result.h"
#include "suite/spec.h"
#include "vmm/exit_times.h"

namespace eb::suite {

struct Observed {
    uint64_t iterations = 0;   // vCPU 0's, summed over the measured batches
    uint64_t all_iterations = 0;  // every vCPU's: more than `iterations` for parallel tests
    uint64_t batches = 0;      // one ucall exit ends each batch
    // Batches that follow one the session set aside (--host-profile): their
    // start is a boundary no counted batch shares, so an interrupt straddling
    // it does not net out against the previous batch's count.
    uint64_t gaps = 0;
    uint64_t user_io = 0;      // KVM_EXIT_IO to test devices (not the ucall port)
    uint64_t user_mmio = 0;    // KVM_EXIT_MMIO to test devices
    uint64_t irqs = 0;         // interrupts handled, all vCPUs
    uint64_t user_hypercall = 0, user_msr = 0;
    vmm::ExitTimeTotals user_times;  // the VMM's time on the userspace exits above
    std::optional<std::map<std::string, uint64_t>> kvm;  // binary-stats deltas
};

ExitCheck check_exits(const Expect& e, const Observed& o, vmm::Backend backend);
// The status a finished run earns from its exit check.
Status status_for(const Expect& e, const ExitCheck& c);
// nullopt when the guest handled the interrupts it should have; else why not.
std::optional<std::string> check_irqs(const Expect& e, const Observed& o);

} // namespace eb::suite
