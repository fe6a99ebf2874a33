// Bodies that misbehave on purpose, so the harness's fault paths are tested.
#include "guest/rt/guest.h"

using namespace eb;

GUEST_BODY(selftest_fault) { asm volatile("ud2"); }
GUEST_BODY(selftest_hang) { asm volatile("1: jmp 1b"); }
GUEST_BODY(selftest_unexpected_exit) { guest::outb(0x5f1, 0); }
// A check that compares two values, as a real one would.
static void failing_setup() { GUEST_CHECK_EQ(guest::boot_info()->nr_vcpus, 0, "setup check failed on purpose"); }
GUEST_BODY_WITH_SETUP(selftest_fail, failing_setup) {}

// Fails on the APs only, so the report must name the AP, not time out on vCPU 0.
static void failing_on_aps() {
    if (reinterpret_cast<uint64_t>(guest::mailbox()) != abi::mailbox_gpa(0)) guest::fail("AP check failed on purpose");
}
GUEST_BODY_WITH_SETUP(selftest_ap_fail, failing_on_aps) {}
