// Capability ids paired with their KVM_CAP_* names, for messages.
#pragma once
#include <linux/kvm.h>

namespace eb::kvm {

struct Cap {
    int id;
    const char* name;
};

#define EB_CAP(x) ::eb::kvm::Cap{KVM_CAP_##x, "KVM_CAP_" #x}

} // namespace eb::kvm
