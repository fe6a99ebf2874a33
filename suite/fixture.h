// Host-side state a test needs beyond the standard devices (an ioeventfd, a
// device), and a check of that state after the run.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "vmm/machine.h"

namespace eb::suite {

class Fixture {
public:
    virtual ~Fixture() = default;
    virtual void install(vmm::Machine& m) = 0;
    // On the vCPU thread, after a batch and before the next one starts.
    virtual void between_batches() {}
    struct Check {
        bool ok;
        std::string what;  // e.g. "ioeventfd fired 960 times for 960 guest writes"
    };
    // `writes`: iterations the guest ran in all batches.
    virtual std::optional<Check> check(uint64_t writes) { (void)writes; return std::nullopt; }
};
using FixtureFactory = std::function<std::unique_ptr<Fixture>()>;

enum class Delivery { ToUser, WildcardEventfd, DatamatchEventfd };

FixtureFactory pm_timer_fixture();
// KVM_CAP_EXIT_HYPERCALL for KVM_HC_MAP_GPA_RANGE: those hypercalls exit to the VMM.
FixtureFactory hypercall_exit_fixture();
// An MSR filter that denies TSC_ADJUST, so its accesses exit to the VMM.
FixtureFactory msr_filter_fixture();
// A memslot at abi::kNpfRegion whose pages the host unmaps between batches.
FixtureFactory npf_fixture();
// The pci-testdev stand-in: writes exit to the VMM or are eaten by an ioeventfd.
FixtureFactory testdev_fixture(kvm::AddrSpace space, Delivery delivery);

} // namespace eb::suite
