// Bodies of vmexit.flat's interrupt tests: self-IPIs in the windows KUT uses, the
// TSC-deadline timer, and IPIs to another vCPU. Every handled interrupt is
// counted by the runtime; the host checks one arrives per iteration.
#include "guest/bodies/self_ipi_family.h"
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
    if (!guest::cpuid_has(cpuid::kTscDeadline)) guest::skip("guest CPUID lacks TSC-deadline (leaf 1 ECX bit 24)");
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

// The windows of the self-IPI family (self_ipi_family.h), one per variant,
// for either way of sending the IPI.
#define EB_WINDOW template <void (*send)()> static inline __attribute__((always_inline)) void
// The IPI sent while TPR=15 masks it, then unmasked.
EB_WINDOW send_masked() {
    guest::set_tpr(0xf);
    send();
    guest::set_tpr(0);
}
EB_WINDOW window_sti_nop() {
    guest::cli();
    send();
    guest::sti_nop();
}
EB_WINDOW window_sti_hlt() {
    guest::cli();
    send();
    guest::sti_hlt();
}
EB_WINDOW window_tpr() {
    send_masked<send>();
    asm volatile("nop");
}
EB_WINDOW window_tpr_sti_nop() {
    guest::cli();
    send_masked<send>();
    guest::sti_nop();
}
EB_WINDOW window_tpr_sti_hlt() {
    guest::cli();
    send_masked<send>();
    guest::sti_hlt();
}
#undef EB_WINDOW

#define EB_SELF_IPI_BODIES(suffix, window, max_exits, lost_on_pvm)                                    \
    GUEST_BODY_WITH_SETUP(self_ipi_##suffix, setup_self_ipi) { window_##suffix<self_ipi>(); }         \
    GUEST_BODY_WITH_SETUP(x2apic_self_ipi_##suffix, setup_x2apic_self_ipi) {                          \
        window_##suffix<x2apic_self_ipi>();                                                           \
    }
EB_SELF_IPI_VARIANTS(EB_SELF_IPI_BODIES)
#undef EB_SELF_IPI_BODIES

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
