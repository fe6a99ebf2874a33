#include "kvm/exit.h"

#include <algorithm>
#include <array>

namespace eb::kvm {

namespace {

// KVM_EXIT_* 0..40 without the prefix: the names the kernel's
// kvm_userspace_exit tracepoint prints and include/uapi/linux/kvm.h defines.
// The uapi headers here stop at NOTIFY; the last two are newer.
constexpr std::array<const char*, 41> kNames = {
    "UNKNOWN",       "EXCEPTION",       "IO",            "HYPERCALL",    "DEBUG",     "HLT",
    "MMIO",          "IRQ_WINDOW_OPEN", "SHUTDOWN",      "FAIL_ENTRY",   "INTR",      "SET_TPR",
    "TPR_ACCESS",    "S390_SIEIC",      "S390_RESET",    "DCR",          "NMI",       "INTERNAL_ERROR",
    "OSI",           "PAPR_HCALL",      "S390_UCONTROL", "WATCHDOG",     "S390_TSCH", "EPR",
    "SYSTEM_EVENT",  "S390_STSI",       "IOAPIC_EOI",    "HYPERV",       "ARM_NISV",  "X86_RDMSR",
    "X86_WRMSR",     "DIRTY_RING_FULL", "AP_RESET_HOLD", "X86_BUS_LOCK", "XEN",       "RISCV_SBI",
    "RISCV_CSR",     "NOTIFY",          "LOONGARCH_IOCSR", "MEMORY_FAULT", "TDX",
};
static_assert(KVM_EXIT_IO == 2 && KVM_EXIT_MMIO == 6 && KVM_EXIT_SHUTDOWN == 8 &&
              KVM_EXIT_INTERNAL_ERROR == 17 && KVM_EXIT_X86_RDMSR == 29 && KVM_EXIT_X86_WRMSR == 30 &&
              KVM_EXIT_NOTIFY == 37);

} // namespace

const char* exit_name(uint64_t reason) { return reason < kNames.size() ? kNames[reason] : nullptr; }

VcpuExit decode_exit(kvm_run& run) {
    switch (run.exit_reason) {
    case KVM_EXIT_IO:
        if (run.io.direction == KVM_EXIT_IO_OUT) return exit::IoOut{run.io.port, run.io.size, run.io.count, io_data(run)};
        return exit::IoIn{run.io.port, run.io.size, run.io.count, io_data(run)};
    case KVM_EXIT_MMIO:
        if (run.mmio.is_write) return exit::MmioWrite{run.mmio.phys_addr, mmio_data(run)};
        return exit::MmioRead{run.mmio.phys_addr, mmio_data(run)};
    case KVM_EXIT_HYPERCALL: return exit::Hypercall{run.hypercall.nr, run.hypercall.ret};
    case KVM_EXIT_X86_RDMSR: return exit::RdMsr{run.msr.index, run.msr.data, run.msr.error};
    case KVM_EXIT_X86_WRMSR: return exit::WrMsr{run.msr.index, run.msr.data, run.msr.error};
    case KVM_EXIT_HLT: return exit::Hlt{};
    case KVM_EXIT_SHUTDOWN: return exit::Shutdown{};
    case KVM_EXIT_FAIL_ENTRY: return exit::FailEntry{run.fail_entry.hardware_entry_failure_reason};
    case KVM_EXIT_INTERNAL_ERROR: {
        uint32_t n = std::min<uint32_t>(run.internal.ndata, std::size(run.internal.data));
        return exit::InternalError{run.internal.suberror, {run.internal.data, run.internal.data + n}};
    }
    default: return exit::Other{run.exit_reason};
    }
}

} // namespace eb::kvm
