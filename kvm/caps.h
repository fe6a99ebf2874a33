// Capability ids paired with their KVM_CAP_* names, for messages.
#pragma once
#include <linux/kvm.h>

namespace eb::kvm {

struct Cap {
    int id;
    const char* name;
};

#define EB_CAP(x) ::eb::kvm::Cap{KVM_CAP_##x, "KVM_CAP_" #x}

// Tests pretend a capability is missing with EXITBENCH_MASK_CAPS=NAME[,NAME];
// there is no other way to exercise that error on a host that has them all.
bool masked_for_tests(Cap cap);

} // namespace eb::kvm
