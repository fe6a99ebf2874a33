// Bodies of vmexit.flat's CR, DR, cache and MSR tests.
#include "guest/rt/guest.h"

using namespace eb;

namespace {
constexpr uint64_t kCr0Wp = 1u << 16;
constexpr uint64_t kCr4Pge = 1u << 7;
constexpr uint32_t kMsrSpecCtrl = 0x48;
constexpr uint32_t kMsrPredCmd = 0x49;
constexpr uint32_t kMsrArchCap = 0x10a;
constexpr uint32_t kMsrTsxCtrl = 0x122;
constexpr uint64_t kArchCapTsxCtrl = 1u << 7;

bool has_spec_ctrl() { return guest::cpuid_has(cpuid::kSpecCtrl); }
bool has_amd_ibpb() { return guest::cpuid_has(cpuid::kAmdIbpb); }

void need_spec_ctrl() {
    if (!has_spec_ctrl()) guest::skip("guest CPUID lacks SPEC_CTRL (leaf 7 EDX bit 26)");
}
void need_ibpb() {
    if (!has_spec_ctrl() && !has_amd_ibpb())
        guest::skip("guest CPUID lacks SPEC_CTRL and AMD IBPB (leaf 0x80000008 EBX bit 12)");
}
void need_tsx_ctrl() {
    if (!guest::cpuid_has(cpuid::kArchCapabilities)) guest::skip("guest CPUID lacks ARCH_CAPABILITIES (leaf 7 EDX bit 29)");
    if (!(guest::rdmsr(kMsrArchCap) & kArchCapTsxCtrl)) guest::skip("ARCH_CAPABILITIES lacks TSX_CTRL_MSR");
}
} // namespace

// Read once, as KUT's cr4_shadow: SVM intercepts CR4 reads, and a read in the
// loop would add an exit per iteration.
static uint64_t cr0_shadow, cr4_shadow;
static void save_cr0() { cr0_shadow = guest::read_cr0(); }
static void save_cr4() { cr4_shadow = guest::read_cr4(); }

GUEST_BODY_WITH_SETUP(toggle_cr0_wp, save_cr0) {
    guest::write_cr0(cr0_shadow & ~kCr0Wp);
    guest::write_cr0(cr0_shadow);
}

GUEST_BODY_WITH_SETUP(toggle_cr4_pge, save_cr4) {
    guest::write_cr4(cr4_shadow ^ kCr4Pge);
    guest::write_cr4(cr4_shadow);
}

GUEST_BODY(mov_dr) { asm volatile("mov %0, %%dr7" :: "r"(0x400ull)); }

GUEST_BODY(wbinvd) { asm volatile("wbinvd" ::: "memory"); }
GUEST_BODY(invd) { asm volatile("invd" ::: "memory"); }

GUEST_BODY_WITH_SETUP(wr_tsx_ctrl_msr, need_tsx_ctrl) { guest::wrmsr(kMsrTsxCtrl, 0); }
GUEST_BODY_WITH_SETUP(wr_ibrs_msr, need_spec_ctrl) {
    guest::wrmsr(kMsrSpecCtrl, 1);
    guest::wrmsr(kMsrSpecCtrl, 0);
}
GUEST_BODY_WITH_SETUP(wr_ibpb_msr, need_ibpb) { guest::wrmsr(kMsrPredCmd, 1); }
