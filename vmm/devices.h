// The VMM's own test devices, in place of QEMU's unassigned port and testdev.
#pragma once
#include "vmm/machine.h"

namespace eb::vmm {

inline constexpr const char* kUserPortDevice = "user-port";
inline constexpr const char* kUserMmioDevice = "user-mmio";

// A port (abi::kUserPort) and an MMIO page (abi::kUserMmio) that answer reads
// with fixed values, so the guest can check it reached them.
void install_test_devices(Machine& m);

} // namespace eb::vmm
