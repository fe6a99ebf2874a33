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
    token = t + 1;
}
