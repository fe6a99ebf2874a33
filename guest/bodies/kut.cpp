// Bodies of the kvm-unit-tests vmexit.flat tests (same names, same
// instructions) plus exitbench's own basics. Each body is one iteration.
#include "guest/rt/guest.h"

using namespace eb;

GUEST_BODY(baseline) {}

GUEST_BODY(cpuid) {
    uint32_t a = 0, b, c = 0, d;
    asm volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
}

// KUT's `vmcall` test: rax=0 (no valid hypercall), exits to KVM's handler.
GUEST_BODY(vmcall) {
    uint64_t a = 0;
    asm volatile("vmcall" : "+a"(a) :: "rbx", "rcx", "rdx", "rsi", "memory");
}

GUEST_BODY(vmmcall) {
    uint64_t a = 0;
    asm volatile("vmmcall" : "+a"(a) :: "rbx", "rcx", "rdx", "rsi", "memory");
}

static void check_user_port() {
    GUEST_CHECK_EQ(guest::inl(abi::kUserPort), abi::kUserPortValue, "user port returned a wrong value");
}
GUEST_BODY_WITH_SETUP(inl_from_qemu, check_user_port) { (void)guest::inl(abi::kUserPort); }

// ELCR, emulated by the in-kernel PIC.
GUEST_BODY(inl_from_kernel) { (void)guest::inb(0x4d0); }
GUEST_BODY(outl_to_kernel) { guest::outb(0x4d0, 0); }

GUEST_BODY(mov_from_cr8) {
    uint64_t v;
    asm volatile("mov %%cr8, %0" : "=r"(v));
}
GUEST_BODY(mov_to_cr8) { asm volatile("mov %0, %%cr8" :: "r"(0ull) : "memory"); }

constexpr uint32_t kMsrTscAdjust = 0x3b;
constexpr uint32_t kMsrKernelGsBase = 0xc0000102;
GUEST_BODY(rd_tsc_adjust_msr) { (void)guest::rdmsr(kMsrTscAdjust); }
GUEST_BODY(wr_tsc_adjust_msr) { guest::wrmsr(kMsrTscAdjust, 0); }
GUEST_BODY(wr_kernel_gs_base) { guest::wrmsr(kMsrKernelGsBase, 0); }

static void check_user_mmio() {
    GUEST_CHECK_EQ(guest::mmio_read32(abi::kUserMmio), abi::kUserMmioValue, "user MMIO returned a wrong value");
}
GUEST_BODY_WITH_SETUP(mmio_from_user, check_user_mmio) { (void)guest::mmio_read32(abi::kUserMmio); }
