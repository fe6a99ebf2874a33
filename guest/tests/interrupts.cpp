// vmexit.flat's interrupt tests: self-IPIs in the windows KUT uses, the
// TSC-deadline timer, and IPIs to another vCPU. Every handled interrupt is
// counted by the runtime; the host checks one arrives per iteration.
#include "guest/rt/apic.h"
#include "guest/rt/guest.h"

using namespace eb;

namespace {

void self_ipi_isr() { g::apic_eoi(); }
void timer_isr() { g::apic_eoi(); }

// This vCPU's handled interrupts (the runtime counts them): parallel runs
// have one timer per vCPU, so a shared counter would not do.
const volatile uint64_t& my_irqs() { return g::mailbox()->irqs; }

void setup_self_ipi() {
    g::set_irq_handler(abi::kSelfIpiVector, self_ipi_isr);
    g::sti();
}
void setup_x2apic_self_ipi() {
    if (!g::apic_x2()) g::skip("the APIC is in xAPIC mode; x2APIC tests need --apic x2apic");
    setup_self_ipi();
}

// KUT's apic_self_ipi: ICR with the self shorthand (an MSR in x2APIC mode).
inline void self_ipi() { g::apic_icr(0, g::kIcrAssert | g::kIcrSelf | abi::kSelfIpiVector); }
// The x2APIC SELF_IPI register.
inline void x2apic_self_ipi() { g::wrmsr(g::kMsrX2apicSelfIpi, abi::kSelfIpiVector); }

void setup_tscdeadline() {
    if (!g::cpuid_has(1, 0, 2, 24)) g::skip("guest CPUID lacks TSC-deadline (leaf 1 ECX bit 24)");
    g::set_irq_handler(abi::kTimerVector, timer_isr);
    g::apic_write(g::kApicLvtt, g::kLvttTscDeadline | abi::kTimerVector);
    g::sti();
}

void setup_ipi() {
    if (g::boot_info()->nr_vcpus < 2) g::skip("needs a second vCPU");
    g::sti();
}

void send_ipi_and_wait() {
    uint64_t before = g::ipi_acks;
    g::ipi_sent_tsc = g::rdtsc_ordered();
    g::apic_icr(1, abi::kIpiVector);  // fixed, physical, to APIC id 1
    g::wait_change(g::ipi_acks, before);
}

} // namespace

#define SELF_IPI_TESTS(prefix, send, setup)                                                  \
    GUEST_TEST_WITH_SETUP(prefix##sti_nop, setup) {                                          \
        g::cli();                                                                            \
        send();                                                                              \
        g::sti_nop();                                                                        \
    }                                                                                        \
    GUEST_TEST_WITH_SETUP(prefix##sti_hlt, setup) {                                          \
        g::cli();                                                                            \
        send();                                                                              \
        g::sti_hlt();                                                                        \
    }                                                                                        \
    GUEST_TEST_WITH_SETUP(prefix##tpr, setup) {                                              \
        g::set_tpr(0xf);                                                                     \
        send();                                                                              \
        g::set_tpr(0);                                                                       \
        asm volatile("nop");                                                                 \
    }                                                                                        \
    GUEST_TEST_WITH_SETUP(prefix##tpr_sti_nop, setup) {                                      \
        g::cli();                                                                            \
        g::set_tpr(0xf);                                                                     \
        send();                                                                              \
        g::set_tpr(0);                                                                       \
        g::sti_nop();                                                                        \
    }                                                                                        \
    GUEST_TEST_WITH_SETUP(prefix##tpr_sti_hlt, setup) {                                      \
        g::cli();                                                                            \
        g::set_tpr(0xf);                                                                     \
        send();                                                                              \
        g::set_tpr(0);                                                                       \
        g::sti_hlt();                                                                        \
    }

SELF_IPI_TESTS(self_ipi_, self_ipi, setup_self_ipi)
SELF_IPI_TESTS(x2apic_self_ipi_, x2apic_self_ipi, setup_x2apic_self_ipi)

// Deadline = now: KVM injects on the next entry; wait until it is handled.
GUEST_TEST_WITH_SETUP(tscdeadline_immed, setup_tscdeadline) {
    uint64_t before = my_irqs();
    g::wrmsr(g::kMsrTscDeadline, g::rdtsc());
    g::wait_change(my_irqs(), before);
}

GUEST_TEST_WITH_SETUP(tscdeadline, setup_tscdeadline) {
    uint64_t before = my_irqs();
    g::wrmsr(g::kMsrTscDeadline, g::rdtsc() + 3000);
    g::wait_change(my_irqs(), before);
}

GUEST_TEST_WITH_SETUP(ipi, setup_ipi) { send_ipi_and_wait(); }

// As ipi, then spin 2000 cycles so the target is halted again by the next IPI.
GUEST_TEST_WITH_SETUP(ipi_halt, setup_ipi) {
    send_ipi_and_wait();
    uint64_t t = g::rdtsc() + 2000;
    while (g::rdtsc() < t) {
    }
}
