// Bodies of vmexit.flat's interrupt tests: self-IPIs in the windows KUT uses, the
// TSC-deadline timer, and IPIs to another vCPU. Every handled interrupt is
// counted by the runtime; the host checks one arrives per iteration.
#include "guest/rt/apic.h"
#include "guest/rt/guest.h"

using namespace eb;

namespace {

void self_ipi_isr() { guest::apic_eoi(); }
void timer_isr() { guest::apic_eoi(); }

// This vCPU's handled interrupts (the runtime counts them): parallel runs
// have one timer per vCPU, so a shared counter would not do.
const volatile uint64_t& my_irqs() { return guest::mailbox()->irqs; }

void setup_self_ipi() {
    guest::set_irq_handler(abi::kSelfIpiVector, self_ipi_isr);
    guest::sti();
}
void setup_x2apic_self_ipi() {
    if (!guest::apic_x2()) guest::skip("the APIC is in xAPIC mode; x2APIC tests need --apic x2apic");
    setup_self_ipi();
}

// KUT's apic_self_ipi: ICR with the self shorthand (an MSR in x2APIC mode).
inline void self_ipi() { guest::apic_icr(0, guest::kIcrAssert | guest::kIcrSelf | abi::kSelfIpiVector); }
// The x2APIC SELF_IPI register.
inline void x2apic_self_ipi() { guest::wrmsr(guest::kMsrX2apicSelfIpi, abi::kSelfIpiVector); }

void setup_tscdeadline() {
    if (!guest::cpuid_has(1, 0, 2, 24)) guest::skip("guest CPUID lacks TSC-deadline (leaf 1 ECX bit 24)");
    guest::set_irq_handler(abi::kTimerVector, timer_isr);
    guest::apic_write(guest::kApicLvtt, guest::kLvttTscDeadline | abi::kTimerVector);
    guest::sti();
}

void setup_ipi() {
    if (guest::boot_info()->nr_vcpus < 2) guest::skip("needs a second vCPU");
    guest::sti();
}

void send_ipi_and_wait() {
    uint64_t before = guest::ipi_acks;
    guest::ipi_sent_tsc = guest::rdtsc_ordered();
    guest::apic_icr(1, abi::kIpiVector);  // fixed, physical, to APIC id 1
    guest::wait_change(guest::ipi_acks, before);
}

} // namespace

#define SELF_IPI_TESTS(prefix, send, setup)                                                  \
    GUEST_BODY_WITH_SETUP(prefix##sti_nop, setup) {                                          \
        guest::cli();                                                                            \
        send();                                                                              \
        guest::sti_nop();                                                                        \
    }                                                                                        \
    GUEST_BODY_WITH_SETUP(prefix##sti_hlt, setup) {                                          \
        guest::cli();                                                                            \
        send();                                                                              \
        guest::sti_hlt();                                                                        \
    }                                                                                        \
    GUEST_BODY_WITH_SETUP(prefix##tpr, setup) {                                              \
        guest::set_tpr(0xf);                                                                     \
        send();                                                                              \
        guest::set_tpr(0);                                                                       \
        asm volatile("nop");                                                                 \
    }                                                                                        \
    GUEST_BODY_WITH_SETUP(prefix##tpr_sti_nop, setup) {                                      \
        guest::cli();                                                                            \
        guest::set_tpr(0xf);                                                                     \
        send();                                                                              \
        guest::set_tpr(0);                                                                       \
        guest::sti_nop();                                                                        \
    }                                                                                        \
    GUEST_BODY_WITH_SETUP(prefix##tpr_sti_hlt, setup) {                                      \
        guest::cli();                                                                            \
        guest::set_tpr(0xf);                                                                     \
        send();                                                                              \
        guest::set_tpr(0);                                                                       \
        guest::sti_hlt();                                                                        \
    }

SELF_IPI_TESTS(self_ipi_, self_ipi, setup_self_ipi)
SELF_IPI_TESTS(x2apic_self_ipi_, x2apic_self_ipi, setup_x2apic_self_ipi)

// Deadline = now: KVM injects on the next entry; wait until it is handled.
GUEST_BODY_WITH_SETUP(tscdeadline_immed, setup_tscdeadline) {
    uint64_t before = my_irqs();
    guest::wrmsr(guest::kMsrTscDeadline, guest::rdtsc());
    guest::wait_change(my_irqs(), before);
}

GUEST_BODY_WITH_SETUP(tscdeadline, setup_tscdeadline) {
    uint64_t before = my_irqs();
    guest::wrmsr(guest::kMsrTscDeadline, guest::rdtsc() + 3000);
    guest::wait_change(my_irqs(), before);
}

GUEST_BODY_WITH_SETUP(ipi, setup_ipi) { send_ipi_and_wait(); }

// As ipi, then spin 2000 cycles so the target is halted again by the next IPI.
GUEST_BODY_WITH_SETUP(ipi_halt, setup_ipi) {
    send_ipi_and_wait();
    uint64_t t = guest::rdtsc() + 2000;
    while (guest::rdtsc() < t) {
    }
}
