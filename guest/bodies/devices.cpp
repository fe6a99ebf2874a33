// Device bodies: the PM timer and the pci-testdev stand-ins. Whether a write
// exits to the VMM or is eaten by an ioeventfd is the host's choice per test;
// the guest bodies are the same.
#include "guest/rt/guest.h"

using namespace eb;

GUEST_BODY(inl_from_pmtimer) { (void)guest::inl(abi::kPmTimerPort); }

GUEST_BODY(testdev_mmio_write) { guest::mmio_write32(abi::kTestDevMmio, abi::kTestDevValue); }
GUEST_BODY(testdev_pio_write) { guest::outl(abi::kTestDevPort, abi::kTestDevValue); }
