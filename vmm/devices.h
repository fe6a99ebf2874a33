// The VMM's own test devices, in place of QEMU's unassigned port and testdev.
#pragma once
#include "vmm/machine.h"

namespace eb::vmm {

inline constexpr const char* kUserPortDevice = "user-port";
inline constexpr const char* kUserMmioDevice = "user-mmio";

// A port (abi::kUserPort) and an MMIO page (abi::kUserMmio) that answer reads
// with fixed values, so the guest can check it reached them.
void install_test_devices(Machine& m);

inline constexpr const char* kPmTimerDevice = "acpi-pm-timer";
// A 24-bit ACPI PM timer at 3.579545 MHz, read from the host's monotonic clock.
void install_pm_timer(Machine& m);
uint32_t pm_timer_now();

// A write sink for the pci-testdev stand-ins: accepts writes, reads as 0.
Handler write_sink();

} // namespace eb::vmm
