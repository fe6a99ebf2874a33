// What a Session needs from the machine under test: the guest's mailboxes
// and the host's exit counters. An interface, like hyperfine's Executor, so
// that batch sizing and exit counting run against a fake in unit tests.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>
#include <sys/types.h>

#include "guest/abi.h"
#include "kvm/stats.h"
#include "vmm/exit_times.h"

namespace eb::vmm {
class Machine;
}

namespace eb::suite {

// Host-side counters at one instant; a batch's exits are the difference of two.
struct HostCounters {
    std::vector<uint64_t> kvm;            // the values of kvm_stat_names(), in order
    uint64_t user_io = 0, user_mmio = 0;  // test-device exits, the ucalls excluded
    uint64_t hypercall = 0, msr = 0;      // other userspace exits
    vmm::ExitTimeTotals user_times;       // the VMM's time on those, all vCPUs
};

class Executor {
public:
    virtual ~Executor() = default;
    virtual uint32_t nr_vcpus() const = 0;
    virtual abi::Mailbox& mailbox(uint32_t vcpu) = 0;
    // vCPU 0's per-exit timestamps of the batch that just ended.
    virtual std::span<const uint64_t> per_exit_samples(uint64_t n) = 0;
    // The KVM binary stats counters() reads; nullopt when the host has none.
    virtual const std::optional<std::vector<std::string>>& kvm_stat_names() const = 0;
    virtual HostCounters counters() const = 0;
    // The vCPU threads' kernel ids (0 for one not started); empty when unknown.
    virtual std::vector<pid_t> vcpu_threads() const { return {}; }
};

// The real one, over a Machine whose ucall device is abi::kUcallDevice.
class MachineExecutor final : public Executor {
public:
    explicit MachineExecutor(vmm::Machine& m);

    uint32_t nr_vcpus() const override;
    abi::Mailbox& mailbox(uint32_t vcpu) override;
    std::span<const uint64_t> per_exit_samples(uint64_t n) override;
    const std::optional<std::vector<std::string>>& kvm_stat_names() const override { return names_; }
    HostCounters counters() const override;
    std::vector<pid_t> vcpu_threads() const override;

private:
    vmm::Machine& m_;
    std::optional<kvm::StatsFd> stats_;
    std::optional<std::vector<std::string>> names_;
    std::vector<size_t> indices_;  // of names_ in stats_
};

} // namespace eb::suite
