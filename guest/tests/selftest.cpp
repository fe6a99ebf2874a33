// Bodies that misbehave on purpose, so the harness's fault paths are tested.
#include "guest/rt/guest.h"

using namespace eb;

GUEST_TEST(selftest_fault) { asm volatile("ud2"); }
GUEST_TEST(selftest_hang) { asm volatile("1: jmp 1b"); }
GUEST_TEST(selftest_unexpected_exit) { g::outb(0x5f1, 0); }
static void failing_setup() { g::fail("setup check failed on purpose"); }
GUEST_TEST_WITH_SETUP(selftest_fail, failing_setup) {}
