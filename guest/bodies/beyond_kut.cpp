// Bodies for exits that vmexit.flat does not measure: MSR, hypercall and
// string-PIO exits to userspace, EPT/NPT violations, interrupt and NMI windows.
#include "guest/rt/apic.h"
#include "guest/rt/guest.h"

using namespace eb;

namespace {

uint64_t xcr0;
void setup_xsetbv() {
    if (!guest::cpuid_has(cpuid::kXsave)) guest::skip("guest CPUID lacks XSAVE");
    guest::write_cr4(guest::read_cr4() | (1u << 18));  // OSXSAVE
    uint32_t lo, hi;
    asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = (uint64_t(hi) << 32) | lo;
}

void setup_rdpmc() {
    uint32_t failed = 0, lo, hi;
    asm volatile("1: rdpmc\n2:\n" EB_EXTABLE("1b", "3f")
                 ".pushsection .text.fixup, \"ax\"\n3: movl $1, %0\n jmp 2b\n.popsection\n"
                 : "+r"(failed), "=a"(lo), "=d"(hi) : "c"(0) : "memory");
    if (failed) guest::skip("RDPMC raised #GP: the guest has no PMU (kvm.enable_pmu=N?)");
}

void setup_rdtscp() {
    if (!guest::cpuid_has(cpuid::kRdtscp)) guest::skip("guest CPUID lacks RDTSCP");
}

void setup_invpcid() {
    if (!guest::cpuid_has(cpuid::kInvpcid)) guest::skip("guest CPUID lacks INVPCID");
}

void setup_monitor() {
    if (!guest::cpuid_has(cpuid::kMonitor)) guest::skip("guest CPUID lacks MONITOR/MWAIT");
}

volatile uint64_t monitored;

void setup_timer() {
    if (!guest::cpuid_has(cpuid::kTscDeadline)) guest::skip("guest CPUID lacks TSC-deadline (leaf 1 ECX bit 24)");
    guest::set_irq_handler(abi::kTimerVector, guest::apic_eoi);
    guest::apic_write(guest::kApicLvtt, guest::kLvttTscDeadline | abi::kTimerVector);
}

void install_self_ipi_eoi() { guest::set_irq_handler(abi::kSelfIpiVector, guest::apic_eoi); }

uint64_t npf_next;

// NMI window: the first NMI's handler sends a second one, which stays pending
// while NMIs are blocked; KVM asks for an NMI window, which opens at IRET.
volatile uint64_t nmis;
void send_self_nmi() { guest::apic_icr(guest::mailbox()->vcpu, guest::kIcrAssert | guest::kIcrNmi); }
void nmi_handler() {
    nmis = nmis + 1;
    if (nmis % 2) send_self_nmi();
}
void setup_nmi() { guest::set_irq_handler(2, nmi_handler); }
uint8_t string_pio_buf[8];

} // namespace

GUEST_BODY_WITH_SETUP(xsetbv, setup_xsetbv) {
    asm volatile("xsetbv" :: "c"(0), "a"(uint32_t(xcr0)), "d"(uint32_t(xcr0 >> 32)));
}

GUEST_BODY_WITH_SETUP(rdpmc, setup_rdpmc) {
    uint32_t lo, hi;
    asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(0));
}

GUEST_BODY_WITH_SETUP(rdtscp, setup_rdtscp) {
    uint32_t lo, hi, aux;
    asm volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
}

GUEST_BODY(invlpg) { asm volatile("invlpg (%0)" :: "r"(abi::kImageBase) : "memory"); }

GUEST_BODY_WITH_SETUP(invpcid, setup_invpcid) {
    struct { uint64_t pcid, addr; } desc = {0, 0};
    asm volatile("invpcid %0, %1" :: "m"(desc), "r"(uint64_t(2)) : "memory");  // all, incl. global
}

GUEST_BODY_WITH_SETUP(monitor_mwait, setup_monitor) {
    asm volatile("monitor" :: "a"(&monitored), "c"(0), "d"(0));
    asm volatile("mwait" :: "a"(0), "c"(0));
}

GUEST_BODY(pause) { asm volatile("pause"); }

// Each iteration writes a page the host has just unmapped (it zaps the
// region between batches), so the write takes an EPT/NPT violation.
GUEST_BODY(npf_first_touch) {
    uint64_t page = npf_next++ % (abi::kNpfBytes / 4096);
    *reinterpret_cast<volatile uint8_t*>(abi::kNpfRegion + page * 4096) = 1;
}

// One KVM_EXIT_IO carries all 8 bytes of the string read.
GUEST_BODY(string_pio_to_user) {
    void* dst = string_pio_buf;
    uint64_t count = sizeof(string_pio_buf);
    asm volatile("rep insb" : "+D"(dst), "+c"(count) : "d"(uint16_t(abi::kUserPort)) : "memory");
}

// HLT, woken by the TSC-deadline timer 2000 cycles later.
GUEST_BODY_WITH_SETUP(hlt_wake, setup_timer) {
    guest::cli();
    guest::wrmsr(guest::kMsrTscDeadline, guest::rdtsc() + 2000);
    guest::sti_hlt();
}

// A self-IPI pending while IF=0: KVM asks for an interrupt window, which
// opens at STI.
GUEST_BODY_WITH_SETUP(irq_window, install_self_ipi_eoi) {
    guest::cli();
    guest::apic_icr(0, guest::kIcrAssert | guest::kIcrSelf | abi::kSelfIpiVector);
    guest::sti();
    asm volatile("nop; nop");
}

GUEST_BODY_WITH_SETUP(nmi_window, setup_nmi) {
    uint64_t before = nmis;
    send_self_nmi();
    uint64_t deadline = guest::rdtsc() + guest::boot_info()->irq_wait_cycles;
    while (nmis < before + 2 && guest::rdtsc() < deadline) guest::pause();
}

// KVM_HC_MAP_GPA_RANGE, which KVM hands to userspace once enabled with
// KVM_CAP_EXIT_HYPERCALL.
static inline void map_gpa_range(bool amd) {
    uint64_t a = 12, b = abi::kNpfRegion, c = 1, d = 0;
    if (amd)
        asm volatile("vmmcall" : "+a"(a) : "b"(b), "c"(c), "d"(d) : "memory");
    else
        asm volatile("vmcall" : "+a"(a) : "b"(b), "c"(c), "d"(d) : "memory");
}
GUEST_BODY(hypercall_to_user_intel) { map_gpa_range(false); }
GUEST_BODY(hypercall_to_user_amd) { map_gpa_range(true); }

// TSC_ADJUST, denied by the VMM's MSR filter: each access exits to userspace.
GUEST_BODY(rdmsr_to_user) { (void)guest::rdmsr(0x3b); }
GUEST_BODY(wrmsr_to_user) { guest::wrmsr(0x3b, 0); }
