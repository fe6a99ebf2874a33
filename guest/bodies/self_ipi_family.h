// The self-IPI family, listed once: the guest expands it into bodies (one per
// variant and APIC mode, in bodies/interrupts.cpp) and the registry into tests
// (suite/registry.cpp). A variant is the window in which the IPI is taken.
//   X(suffix, window, max_exits, lost_on_pvm)
// max_exits: exits per iteration at most (the minimum is one);
// lost_on_pvm: a one-instruction window that kvm_pvm never delivers into.
#pragma once

#define EB_SELF_IPI_VARIANTS(X)                                           \
    X(sti_nop, "cli; IPI; sti; nop", 3, true)                             \
    X(sti_hlt, "cli; IPI; sti; hlt", 4, false)                            \
    X(tpr, "TPR=15; IPI; TPR=0; nop", 5, true)                            \
    X(tpr_sti_nop, "cli; TPR=15; IPI; TPR=0; sti; nop", 5, true)          \
    X(tpr_sti_hlt, "cli; TPR=15; IPI; TPR=0; sti; hlt", 6, false)
