#include "vmm/exit_names.h"

#include <linux/kvm.h>

namespace eb::vmm {

std::string exit_reason_name(uint32_t reason) {
    switch (reason) {
#define N(x) case KVM_EXIT_##x: return "KVM_EXIT_" #x;
        N(UNKNOWN) N(EXCEPTION) N(IO) N(HYPERCALL) N(DEBUG) N(HLT) N(MMIO) N(IRQ_WINDOW_OPEN)
        N(SHUTDOWN) N(FAIL_ENTRY) N(INTR) N(SET_TPR) N(TPR_ACCESS) N(NMI) N(INTERNAL_ERROR)
        N(OSI) N(PAPR_HCALL) N(WATCHDOG) N(EPR) N(SYSTEM_EVENT) N(IOAPIC_EOI) N(HYPERV)
        N(X86_RDMSR) N(X86_WRMSR) N(DIRTY_RING_FULL) N(AP_RESET_HOLD) N(X86_BUS_LOCK)
        N(XEN) N(NOTIFY)
#undef N
    }
    return "KVM exit reason " + std::to_string(reason);
}

} // namespace eb::vmm
