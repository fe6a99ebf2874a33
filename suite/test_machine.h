// One test's VM as the Runner drives it, and what makes one: KvmMachines
// over vmm::Machine on /dev/kvm, a fake in unit tests. The seam is at the
// VM's construction and at the watchdog's 10 ms polls, never per exit: the
// vCPU threads' exit loop stays vmm::Machine's own, with no virtual call.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "guest/abi.h"
#include "suite/executor.h"
#include "suite/fixture.h"
#include "vmm/image.h"
#include "vmm/io_bus.h"
#include "vmm/machine.h"

namespace eb::suite {

class TestMachine {
public:
    virtual ~TestMachine() = default;
    // The guest's mailboxes and the host's counters, for the Session.
    virtual Executor& executor() = 0;
    // Routes the guest's ucalls (abi::kUcallPort) to `h`; before start().
    virtual void on_ucall(vmm::Handler h) = 0;
    virtual void start() = 0;
    // As vmm::Machine::wait: true once vCPU 0's thread has ended.
    virtual bool wait(std::chrono::milliseconds d) = 0;
    virtual void stop() = 0;
    virtual uint32_t nr_vcpus() const = 0;
    virtual const vmm::VcpuOutcome& outcome(uint32_t i) const = 0;
    // A one-line register dump of a stopped vCPU.
    virtual std::string registers(uint32_t i) = 0;
};

class MachineFactory {
public:
    virtual ~MachineFactory() = default;
    // The guest image's entry for a body; nullptr when it has none.
    virtual const abi::BodyEntry* body(std::string_view name) const = 0;
    // A fresh VM with the test devices and `fixture` (if any) installed.
    virtual std::unique_ptr<TestMachine> make(const vmm::MachineConfig& cfg, Fixture* fixture) const = 0;
};

// The real machines: fresh KVM VMs running `image`.
class KvmMachines final : public MachineFactory {
public:
    KvmMachines(const kvm::System& sys, const vmm::GuestImage& image) : sys_(sys), image_(image) {}
    const abi::BodyEntry* body(std::string_view name) const override { return image_.body(name); }
    std::unique_ptr<TestMachine> make(const vmm::MachineConfig& cfg, Fixture* fixture) const override;

private:
    const kvm::System& sys_;
    const vmm::GuestImage& image_;
};

} // namespace eb::suite
