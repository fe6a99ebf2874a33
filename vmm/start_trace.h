// Where a machine's start goes, step by step, for `exitbench_bench start`:
// the machine marks the end of each step when MachineConfig::trace is set,
// and each step's time is what passed since the previous mark (summed over
// vCPUs for the per-vCPU steps). Costs one untaken branch per step otherwise.
#pragma once
#include <array>
#include <chrono>
#include <cstddef>
#include <iterator>

namespace eb::vmm {

enum class StartStep : size_t {
    Vm,          // KVM_CREATE_VM (and the vCPU mmap size)
    Memory,      // mmap of guest RAM
    Slot,        // capability checks, the memory slot
    Irqchip,     // KVM_CREATE_IRQCHIP (after the slot: see Machine's constructor)
    Image,       // the guest image copied into guest RAM
    Tables,      // page tables, GDT/TSS/IDT, boot info
    Cpuid,       // the CPUID table offered to the guest
    VcpuCreate,  // KVM_CREATE_VCPU and its kvm_run mapping
    VcpuCpuid,   // KVM_SET_CPUID2
    VcpuState,   // segment and general registers, MP state
    Bookkeeping, // per-vCPU outcome and exit-time records
    Devices,     // the caller's devices (the bench marks this one)
    Threads,     // vCPU thread creation (Machine::start)
    Count
};

inline const char* start_step_name(StartStep s) {
    constexpr const char* kNames[] = {"VM create",   "memory mmap",   "caps, memory slot", "in-kernel irqchip",
                                      "image copy",  "page/descriptor tables, boot info", "CPUID table",
                                      "vCPU create", "vCPU CPUID set", "vCPU registers, boot state",
                                      "per-vCPU records", "devices (the caller's)",
                                      "thread creation"};
    static_assert(std::size(kNames) == size_t(StartStep::Count));
    return kNames[size_t(s)];
}

struct StartTrace {
    using Clock = std::chrono::steady_clock;
    std::array<double, size_t(StartStep::Count)> ms{};
    Clock::time_point last = Clock::now();
    Clock::time_point first_run{};  // vCPU 0's thread, just before its first KVM_RUN

    // Ends `s` now: the time since the previous mark goes to it.
    void mark(StartStep s) {
        auto now = Clock::now();
        ms[size_t(s)] += std::chrono::duration<double, std::milli>(now - last).count();
        last = now;
    }
};

inline void mark(StartTrace* t, StartStep s) {
    if (t) t->mark(s);
}

} // namespace eb::vmm
