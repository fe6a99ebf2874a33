#include "suite/executor.h"

#include <stdexcept>

#include "vmm/machine.h"

namespace eb::suite {

namespace {
// KVM counters worth keeping per test; absent ones are skipped.
constexpr const char* kTracked[] = {"exits", "irq_exits", "io_exits", "mmio_exits", "halt_exits",
                                    "hypercalls", "insn_emulation", "irq_window_exits",
                                    "nmi_window_exits", "signal_exits", "irq_injections"};
} // namespace

MachineExecutor::MachineExecutor(vmm::Machine& m) : m_(m) {
    if (!m.vm().check_extension(EB_CAP(BINARY_STATS_FD))) return;
    stats_.emplace(m.vcpu(0).stats_fd());
    names_.emplace();
    for (const char* name : kTracked)
        if (auto i = stats_->find(name)) {
            names_->push_back(name);
            indices_.push_back(*i);
        }
}

uint32_t MachineExecutor::nr_vcpus() const { return m_.nr_vcpus(); }

abi::Mailbox& MachineExecutor::mailbox(uint32_t vcpu) {
    return *m_.mem().at<abi::Mailbox>(abi::mailbox_gpa(vcpu));
}

std::span<const uint64_t> MachineExecutor::per_exit_samples(uint64_t n) {
    // The whole range is checked, not just its first word: n comes from the
    // batch size, and the buffer holds at most kSampleMax samples.
    if (n > abi::kSampleMax) throw std::out_of_range("per-exit batch larger than the guest's sample buffer");
    return {reinterpret_cast<const uint64_t*>(m_.mem().ptr(abi::kSampleBuf, n * sizeof(uint64_t))), n};
}

HostCounters MachineExecutor::counters() const {
    HostCounters c;
    if (stats_) {
        auto block = stats_->read();
        for (size_t i : indices_) c.kvm.push_back(stats_->value(block, i));
    }
    const auto* ucall = m_.pio().region(abi::kUcallDevice);
    if (!ucall) throw std::logic_error("the machine has no ucall device");
    c.user_io = m_.pio().total_hits() - m_.pio().hits(*ucall);
    c.user_mmio = m_.mmio().total_hits();
    c.hypercall = m_.hypercall_exits();
    c.msr = m_.msr_exits();
    for (uint32_t i = 0; i < m_.nr_vcpus(); ++i) c.user_times += m_.exit_times(i);
    return c;
}

std::vector<pid_t> MachineExecutor::vcpu_threads() const {
    std::vector<pid_t> out(m_.nr_vcpus());
    for (uint32_t i = 0; i < out.size(); ++i) out[i] = m_.thread_id(i);
    return out;
}

} // namespace eb::suite
