// A VM with its memory, vCPU threads and userspace I/O buses.
#pragma once
#include <atomic>
#include <chrono>
#include <memory>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include <sys/types.h>

#include "kvm/system.h"
#include "kvm/vcpu.h"
#include "kvm/vm.h"
#include "vmm/boot.h"
#include "vmm/exit_times.h"
#include "vmm/image.h"
#include "vmm/io_bus.h"
#include "vmm/memory.h"
#include "vmm/start_trace.h"

namespace eb::vmm {

struct MachineConfig {
    uint32_t vcpus = 1;
    std::vector<int> pin;       // host CPU for each vCPU; empty = unpinned
    uint64_t batch = 0;         // guest address of the test's batch function
    uint64_t setup = 0;         // and of its setup function, or 0
    uint64_t per_exit = 0;      // per-exit batch function, when timing each exit
    GuestCpuState cpu;
    uint32_t apic_mode = 0;     // abi::ApicMode; 0 leaves the APIC alone
    bool parallel = false;      // APs run the batch too
    uint64_t irq_wait_cycles = 0;
    std::vector<kvm_cpuid_entry2> cpuid;                     // empty: guest_cpuid(sys)
    std::vector<std::pair<uint32_t, uint64_t>> msr_knobs;    // guest writes these first
    std::vector<std::pair<uint32_t, uint32_t>> cpuid_probes; // leaves it reports back
    StartTrace* trace = nullptr;  // the bench's step timing; outlives start()
};

// Why a vCPU thread stopped.
struct VcpuOutcome {
    enum Kind { Running, Stopped, Kicked, Unexpected, Error } kind = Running;
    std::string detail;
};

// Throws MissingCapability naming the first capability the VMM needs and the
// host lacks.
void check_host(const kvm::System& sys);

class Machine {
public:
    Machine(const kvm::System& sys, const GuestImage& image, const MachineConfig& cfg);
    ~Machine();
    Machine(const Machine&) = delete;
    Machine& operator=(const Machine&) = delete;

    kvm::Vm& vm() { return vm_; }
    GuestMemory& mem() { return mem_; }
    IoBus& pio() { return pio_; }
    IoBus& mmio() { return mmio_; }
    uint32_t nr_vcpus() const { return static_cast<uint32_t>(vcpus_.size()); }
    kvm::Vcpu& vcpu(uint32_t i) { return vcpus_[i]; }

    void start();
    // Waits up to `d` for vCPU 0's thread, which runs the test, to end (or
    // every thread, should an AP fail first); true when it has.
    bool wait(std::chrono::milliseconds d);
    // Kicks every vCPU out of KVM_RUN (signal + immediate_exit) and joins.
    void stop();
    const VcpuOutcome& outcome(uint32_t i) const { return outcomes_[i]; }
    // Userspace exits that are not PIO/MMIO, answered by the VMM itself.
    uint64_t hypercall_exits() const;
    uint64_t msr_exits() const;
    // The VMM's time on vCPU i's userspace exits, the ucall's excluded.
    // An exit is recorded when its vCPU next returns from KVM_RUN.
    ExitTimeTotals exit_times(uint32_t i) const { return times_[i].read(); }
    // vCPU i's kernel thread id once its thread runs, else 0 (a host profiler samples it).
    pid_t thread_id(uint32_t i) const { return tids_[i].load(std::memory_order_acquire); }

    // A one-line register dump; only meaningful once the vCPU is stopped.
    std::string registers(uint32_t i);

private:
    void vcpu_loop(uint32_t i);
    // One exit, read from vCPU i's kvm_run: PIO, MMIO, MSR and hypercall
    // exits on a flat path, anything else through rare_exit.
    Action handle(uint32_t i, kvm_run& run);
    Action pio(uint32_t i, kvm_run& run);
    Action mmio(uint32_t i, kvm_run& run);
    Action rare_exit(uint32_t i, kvm_run& run);
    // Records an exit no device or rule answers; the vCPU stops.
    Action unexpected(uint32_t i, std::string what);

    kvm::Vm vm_;
    GuestMemory mem_;
    IoBus pio_, mmio_;
    std::vector<kvm::Vcpu> vcpus_;
    std::vector<VcpuOutcome> outcomes_;
    std::vector<std::thread> threads_;
    std::vector<int> pin_;
    StartTrace* trace_;
    std::atomic<bool> stop_{false};
    // Exits the VMM answers itself, per vCPU: each written by its own thread
    // only (a load and a store, no locked add), summed by readers.
    struct VcpuCounts {
        std::atomic<uint64_t> hypercalls{0}, msrs{0};
    };
    std::unique_ptr<VcpuCounts[]> counts_;
    std::unique_ptr<ExitTimes[]> times_;  // one per vCPU, allocated before any runs
    std::unique_ptr<std::atomic<pid_t>[]> tids_;  // likewise
    std::mutex mu_;
    std::condition_variable cv_;
    uint32_t running_ = 0;
    bool bsp_done_ = false;
};

} // namespace eb::vmm
