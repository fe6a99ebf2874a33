// The guest's main loop: run batches of the body when the host asks,
// report exceptions and failures through the mailbox.
#include "guest/rt/apic.h"
#include "guest/rt/guest.h"

using namespace eb;

bool eb_dispatch_irq(uint64_t vector);

namespace eb::guest {
volatile uint64_t ipi_sent_tsc;
volatile uint64_t ipi_acks;
} // namespace eb::guest

namespace {

struct IsrFrame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector, error_code, rip, cs, rflags, rsp, ss;
};

void copy_msg(char* dst, const char* src, int cap) {
    int i = 0;
    for (; i < cap - 1 && src[i]; ++i) dst[i] = src[i];
    dst[i] = 0;
}

uint64_t read_cr2() {
    uint64_t v;
    asm volatile("mov %%cr2, %0" : "=r"(v));
    return v;
}

} // namespace

namespace eb::guest {

namespace {
[[noreturn]] void send_fail(const char* msg) {
    copy_msg(mailbox()->msg, msg, sizeof(abi::Mailbox::msg));
    ucall(abi::kFail);
    halt_forever();
}
} // namespace

void fail(const char* msg) {
    mailbox()->check.line = 0;  // no check: the message is all there is
    send_fail(msg);
}

void fail_check(const char* file, uint32_t line, const char* expr, bool has_values, uint64_t lhs, uint64_t rhs,
                const char* msg) {
    // __FILE__ holds the build's path to the source: keep it from "guest/" on.
    const char* from = file;
    for (const char* p = file; *p; ++p)
        if (p[0] == 'g' && p[1] == 'u' && p[2] == 'e' && p[3] == 's' && p[4] == 't' && p[5] == '/') from = p;
    auto& c = mailbox()->check;
    copy_msg(c.file, from, sizeof c.file);
    copy_msg(c.expr, expr, sizeof c.expr);
    c.line = line;
    c.has_values = has_values;
    c.lhs = lhs;
    c.rhs = rhs;
    send_fail(msg);
}

void skip(const char* why) {
    copy_msg(mailbox()->msg, why, sizeof(abi::Mailbox::msg));
    ucall(abi::kSkip);
    halt_forever();
}

} // namespace eb::guest

struct ExtableEntry {
    uint64_t fault, fixup;
};
extern "C" const ExtableEntry __start_eb_extable[], __stop_eb_extable[];

extern "C" void eb_isr(IsrFrame* f) {
    if (f->vector == 0xff) return;  // spurious: no EOI
    if (f->vector < 32)
        for (const ExtableEntry* e = __start_eb_extable; e != __stop_eb_extable; ++e)
            if (e->fault == f->rip) {
                f->rip = e->fixup;
                return;
            }
    // NMIs (vector 2) go to a handler too when a test installed one.
    if ((f->vector >= 32 || f->vector == 2) && eb_dispatch_irq(f->vector)) return;
    abi::Mailbox* mb = guest::mailbox();
    if (f->vector < 32)
        mb->exc = {f->vector, f->error_code, f->rip, f->cs, f->rflags, f->rsp, read_cr2()};
    else
        mb->exc = {f->vector, 0, f->rip, f->cs, f->rflags, f->rsp, 0};
    // An exception, or an interrupt no test asked for, ends the test.
    guest::ucall(abi::kException);
    guest::halt_forever();
}

namespace {

using BatchFn = uint64_t (*)(uint64_t);

// Parallel batches (KUT's parallel=1): the BSP opens a generation, every AP
// runs the same batch, and the BSP's timing spans all of them.
volatile uint64_t par_gen, par_iters, par_done;

// IPI target: the sender stamped the TSC just before its ICR write.
void ipi_ack() {
    uint64_t lat = guest::rdtsc_ordered() - guest::ipi_sent_tsc;
    abi::Mailbox* mb = guest::mailbox();
    mb->ipi_lat_sum = mb->ipi_lat_sum + lat;
    mb->ipi_lat_count = mb->ipi_lat_count + 1;
    __atomic_fetch_add(&guest::ipi_acks, 1, __ATOMIC_SEQ_CST);
    guest::apic_eoi();
}

[[noreturn]] void ap_main(const abi::BootInfo* boot, BatchFn batch) {
    if (boot->parallel) {
        if (boot->setup) reinterpret_cast<void (*)()>(boot->setup)();
        uint64_t seen = 0;
        for (;;) {
            while (par_gen == seen) guest::pause();
            seen = par_gen;
            batch(par_iters);
            __atomic_fetch_add(&par_done, 1, __ATOMIC_SEQ_CST);
        }
    }
    for (;;) guest::sti_hlt();  // idle until an IPI; its handler acknowledges it
}

uint64_t parallel_batch(const abi::BootInfo* boot, BatchFn batch, uint64_t n) {
    uint64_t t0 = guest::rdtsc_ordered();
    par_iters = n;
    par_done = 0;
    __atomic_fetch_add(&par_gen, 1, __ATOMIC_SEQ_CST);
    batch(n);
    while (par_done < boot->nr_vcpus - 1) guest::pause();
    return guest::rdtsc_ordered() - t0;
}

} // namespace

// Applies the host's guest-state knobs and records what the guest then sees.
static void apply_knobs(const abi::BootInfo* boot, abi::Mailbox* mb) {
    static const char hex[] = "0123456789abcdef";
    for (uint32_t i = 0; i < boot->nr_msr_knobs && i < 8; ++i) {
        const auto& k = boot->msr_knobs[i];
        if (!guest::wrmsr_safe(k.index, k.value)) {
            char msg[] = "the guest CPU model does not take this --guest-msr knob: WRMSR 0x???????? raised #GP";
            constexpr int at = sizeof "the guest CPU model does not take this --guest-msr knob: WRMSR 0x" - 1;
            for (int d = 0; d < 8; ++d) msg[at + d] = hex[(k.index >> (28 - 4 * d)) & 15];
            guest::skip(msg);  // the CPU model lacks the MSR: the configuration cannot run, nothing failed
        }
        uint64_t v = 0;
        mb->state.msr[i] = guest::rdmsr_safe(k.index, &v) ? v : ~0ull;
    }
    for (uint32_t i = 0; i < boot->nr_cpuid_probes && i < 8; ++i)
        guest::cpuid(boot->cpuid_probes[i].leaf, boot->cpuid_probes[i].sub, mb->state.cpuid[i]);
    mb->state.efer = guest::rdmsr(0xc0000080);
}

extern "C" void guest_main(uint32_t vcpu) {
    auto* boot = reinterpret_cast<const abi::BootInfo*>(abi::kBootInfo);
    auto batch = reinterpret_cast<BatchFn>(boot->batch);
    apply_knobs(boot, guest::mailbox());
    if (boot->apic_mode) guest::apic_init(boot->apic_mode);
    guest::set_irq_handler(abi::kIpiVector, ipi_ack);
    if (vcpu != 0) ap_main(boot, batch);
    if (boot->setup) reinterpret_cast<void (*)()>(boot->setup)();
    abi::Mailbox* mb = guest::mailbox();
    bool parallel = boot->parallel && boot->nr_vcpus > 1;
    auto per_exit = reinterpret_cast<uint64_t (*)(uint64_t, uint64_t*)>(boot->per_exit);
    auto* samples = reinterpret_cast<uint64_t*>(abi::kSampleBuf);
    guest::ucall(abi::kReady);
    for (;;) {
        uint64_t n = mb->iterations;
        if (per_exit)
            mb->cycles = per_exit(n, samples);
        else
            mb->cycles = parallel ? parallel_batch(boot, batch, n) : batch(n);
        guest::ucall(abi::kBatchDone);
    }
}

// The compiler may emit calls to these for struct copies.
extern "C" void* memcpy(void* d, const void* s, unsigned long n) {
    auto* dp = static_cast<char*>(d);
    auto* sp = static_cast<const char*>(s);
    while (n--) *dp++ = *sp++;
    return d;
}
extern "C" void* memset(void* d, int c, unsigned long n) {
    auto* dp = static_cast<char*>(d);
    while (n--) *dp++ = static_cast<char>(c);
    return d;
}
