#include "suite/test_machine.h"

#include "vmm/devices.h"

namespace eb::suite {

namespace {

class KvmMachine final : public TestMachine {
public:
    KvmMachine(const kvm::System& sys, const vmm::GuestImage& image, const vmm::MachineConfig& cfg,
               Fixture* fixture)
        : m_(sys, image, cfg), exec_(install(m_, fixture)) {}

    Executor& executor() override { return exec_; }
    void on_ucall(vmm::Handler h) override { m_.pio().add(abi::kUcallDevice, abi::kUcallPort, 4, std::move(h)); }
    void start() override { m_.start(); }
    bool wait(std::chrono::milliseconds d) override { return m_.wait(d); }
    void stop() override { m_.stop(); }
    uint32_t nr_vcpus() const override { return m_.nr_vcpus(); }
    const vmm::VcpuOutcome& outcome(uint32_t i) const override { return m_.outcome(i); }
    std::string registers(uint32_t i) override { return m_.registers(i); }

private:
    // The devices go in before the executor reads the machine's stats fd.
    static vmm::Machine& install(vmm::Machine& m, Fixture* fixture) {
        vmm::install_test_devices(m);
        if (fixture) fixture->install(m);
        return m;
    }

    vmm::Machine m_;
    MachineExecutor exec_;
};

} // namespace

std::unique_ptr<TestMachine> KvmMachines::make(const vmm::MachineConfig& cfg, Fixture* fixture) const {
    return std::make_unique<KvmMachine>(sys_, image_, cfg, fixture);
}

} // namespace eb::suite
