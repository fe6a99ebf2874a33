// KUT's ple_round_robin: a token passed round all vCPUs, each waiting its turn
// with PAUSE, so pause-loop exiting has something to detect.
#include "guest/rt/apic.h"
#include "guest/rt/guest.h"

using namespace eb;

namespace {
volatile uint64_t token;
}

GUEST_BODY(ple_round_robin) {
    uint32_t me = guest::mailbox()->vcpu, n = guest::boot_info()->nr_vcpus;
    uint64_t t;
    while ((t = token) % n != me) guest::pause();
    // The hand-off is the instruction trace verification counts (registry:
    // '48 89 0d', a RIP-relative store from RCX), so its register and its
    // addressing are fixed here, not left to the compiler: gcc and clang
    // chose different ones.
    asm volatile("movq %%rcx, %c1(%%rip)" : : "c"(t + 1), "i"(&token) : "memory");
}
