// Device tests: the PM timer and the pci-testdev stand-ins. Whether a write
// exits to the VMM or is eaten by an ioeventfd is the host's choice per test;
// the guest bodies are the same.
#include "guest/rt/guest.h"

using namespace eb;

GUEST_TEST(inl_from_pmtimer) { (void)g::inl(abi::kPmTimerPort); }

GUEST_TEST(testdev_mmio_write) { g::mmio_write32(abi::kTestDevMmio, abi::kTestDevValue); }
GUEST_TEST(testdev_pio_write) { g::outl(abi::kTestDevPort, abi::kTestDevValue); }
