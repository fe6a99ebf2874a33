#include "kvm/exit.h"

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

} // namespace eb::kvm
