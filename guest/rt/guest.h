// Freestanding helpers for guest code and the GUEST_BODY macro.
#pragma once
#include <stdint.h>

#include "guest/abi.h"
#include "guest/cpuid_bits.h"

namespace eb::guest {

inline uint64_t rdtsc_ordered() {
    uint32_t lo, hi;
    asm volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return (uint64_t(hi) << 32) | lo;
}

inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
    asm volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

inline uint8_t inb(uint16_t port) {
    uint8_t v;
    asm volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}
inline uint32_t inl(uint16_t port) {
    uint32_t v;
    asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}
inline void outb(uint16_t port, uint8_t v) { asm volatile("outb %0, %1" :: "a"(v), "Nd"(port)); }
inline void outl(uint16_t port, uint32_t v) { asm volatile("outl %0, %1" :: "a"(v), "Nd"(port)); }

inline uint64_t rdmsr(uint32_t msr) {
    uint32_t lo, hi;
    asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return (uint64_t(hi) << 32) | lo;
}
inline void wrmsr(uint32_t msr, uint64_t v) {
    asm volatile("wrmsr" :: "c"(msr), "a"(uint32_t(v)), "d"(uint32_t(v >> 32)) : "memory");
}

// WRMSR/RDMSR that survive a #GP: the fault handler finds the faulting rip
// in eb_extable and resumes at the fixup, which reports the failure.
#define EB_EXTABLE(fault, fixup) \
    ".pushsection eb_extable, \"a\"\n.balign 8\n.quad " fault ", " fixup "\n.popsection\n"

inline bool wrmsr_safe(uint32_t msr, uint64_t v) {
    uint32_t failed = 0;
    asm volatile("1: wrmsr\n2:\n" EB_EXTABLE("1b", "3f")
                 ".pushsection .text.fixup, \"ax\"\n3: movl $1, %0\n jmp 2b\n.popsection\n"
                 : "+r"(failed) : "c"(msr), "a"(uint32_t(v)), "d"(uint32_t(v >> 32)) : "memory");
    return !failed;
}

inline bool rdmsr_safe(uint32_t msr, uint64_t* v) {
    uint32_t failed = 0, lo = 0, hi = 0;
    asm volatile("1: rdmsr\n2:\n" EB_EXTABLE("1b", "3f")
                 ".pushsection .text.fixup, \"ax\"\n3: movl $1, %0\n jmp 2b\n.popsection\n"
                 : "+r"(failed), "+a"(lo), "+d"(hi) : "c"(msr) : "memory");
    *v = (uint64_t(hi) << 32) | lo;
    return !failed;
}

inline uint32_t mmio_read32(uint64_t gpa) { return *reinterpret_cast<volatile uint32_t*>(gpa); }

[[noreturn]] inline void halt_forever() {
    for (;;) asm volatile("cli; hlt");
}

inline abi::Mailbox* mailbox() {
    uint64_t self;
    asm volatile("mov %%gs:0, %0" : "=r"(self));
    return reinterpret_cast<abi::Mailbox*>(self);
}

inline void ucall(abi::Ucall u) { outl(abi::kUcallPort, u); }

inline uint64_t rdtsc() {
    uint32_t lo, hi;
    asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t(hi) << 32) | lo;
}

// Shared by all vCPUs: the IPI sender's TSC stamp and the targets' ack count.
extern volatile uint64_t ipi_sent_tsc;
extern volatile uint64_t ipi_acks;

inline const abi::BootInfo* boot_info() { return reinterpret_cast<const abi::BootInfo*>(abi::kBootInfo); }

// Spins until `v` differs from `old`, or gives up after the host's interrupt
// wait; false means the interrupt was lost (the host's count will show it).
inline bool wait_change(const volatile uint64_t& v, uint64_t old) {
    uint64_t deadline = rdtsc() + boot_info()->irq_wait_cycles;
    while (v == old) {
        if (rdtsc() > deadline) return false;
        asm volatile("pause");
    }
    return true;
}

// Reports a failed check to the host; the test ends there. Prefer the
// GUEST_CHECK macros below, which also report where and what was compared.
[[noreturn]] void fail(const char* msg);
// What GUEST_CHECK and GUEST_CHECK_EQ call: the host shows file:line, the
// check's text, the two values (for _EQ) and the message in the test's detail.
[[noreturn]] void fail_check(const char* file, uint32_t line, const char* expr, bool has_values, uint64_t lhs,
                             uint64_t rhs, const char* msg);
// Reports that the guest lacks what the test needs; the test is skipped.
[[noreturn]] void skip(const char* why);

// A CPUID feature as the guest sees it.
inline bool cpuid_has(const cpuid::Feature& f) {
    uint32_t r[4];
    cpuid(f.leaf & 0x80000000u, 0, r);  // the highest leaf of this range
    if (r[0] < f.leaf) return false;
    cpuid(f.leaf, f.sub, r);
    return cpuid::has(f, r);
}

inline uint64_t read_cr0() { uint64_t v; asm volatile("mov %%cr0, %0" : "=r"(v)); return v; }
inline void write_cr0(uint64_t v) { asm volatile("mov %0, %%cr0" :: "r"(v) : "memory"); }
inline uint64_t read_cr4() { uint64_t v; asm volatile("mov %%cr4, %0" : "=r"(v)); return v; }
inline void write_cr4(uint64_t v) { asm volatile("mov %0, %%cr4" :: "r"(v) : "memory"); }
inline void mmio_write32(uint64_t gpa, uint32_t v) { *reinterpret_cast<volatile uint32_t*>(gpa) = v; }

} // namespace eb::guest

// One guest body: the workload of a registry test, one iteration of it. The
// loop and its timestamps live here, so every body gets the same loop as the
// baseline and the body is inlined into it.
#define EB_GUEST_BODY(name, setup_fn)                                                       \
    static inline __attribute__((always_inline)) void eb_body_##name();                     \
    static uint64_t eb_batch_##name(uint64_t n) {                                           \
        uint64_t t0 = ::eb::guest::rdtsc_ordered();                                         \
        for (uint64_t i = 0; i < n; ++i) {                                                  \
            eb_body_##name();                                                               \
            asm volatile("" ::: "memory");                                                  \
        }                                                                                   \
        return ::eb::guest::rdtsc_ordered() - t0;                                           \
    }                                                                                       \
    static uint64_t eb_per_exit_##name(uint64_t n, uint64_t* out) {                         \
        uint64_t start = ::eb::guest::rdtsc_ordered();                                      \
        for (uint64_t i = 0; i < n; ++i) {                                                  \
            uint64_t t0 = ::eb::guest::rdtsc_ordered();                                     \
            eb_body_##name();                                                               \
            out[i] = ::eb::guest::rdtsc_ordered() - t0;                                     \
        }                                                                                   \
        return ::eb::guest::rdtsc_ordered() - start;                                        \
    }                                                                                       \
    __attribute__((section("eb_bodies"), used, aligned(8))) static const ::eb::abi::BodyEntry         \
        eb_entry_##name = {reinterpret_cast<uint64_t>(#name),                               \
                           reinterpret_cast<uint64_t>(eb_batch_##name),                     \
                           reinterpret_cast<uint64_t>(setup_fn),                            \
                           reinterpret_cast<uint64_t>(eb_per_exit_##name)};                 \
    static inline void eb_body_##name()

#define GUEST_BODY(name) EB_GUEST_BODY(name, nullptr)
#define GUEST_BODY_WITH_SETUP(name, setup) EB_GUEST_BODY(name, setup)

// Guest checks in the manner of the KVM selftests' guest asserts.
#define GUEST_CHECK(cond, msg)                                                                 \
    do {                                                                                       \
        if (!(cond)) ::eb::guest::fail_check(__FILE__, __LINE__, #cond, false, 0, 0, msg);     \
    } while (0)
#define GUEST_CHECK_EQ(a, b, msg)                                                              \
    do {                                                                                       \
        uint64_t eb_l_ = static_cast<uint64_t>(a), eb_r_ = static_cast<uint64_t>(b);           \
        if (eb_l_ != eb_r_) ::eb::guest::fail_check(__FILE__, __LINE__, #a " == " #b, true, eb_l_, eb_r_, msg); \
    } while (0)
