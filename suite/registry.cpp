#include "suite/registry.h"

namespace eb::suite {

namespace {

std::vector<TestSpec> build() {
    const std::string no_cr8_exit =
        "with an in-kernel LAPIC, VMX's TPR shadow and SVM's CR8 handling usually let the guest "
        "access CR8 without an exit";
    return {
        {.name = "baseline", .summary = "empty loop body: the loop overhead every other test carries",
         .body = "baseline", .expect = no_exit()},
        {.name = "cpuid", .summary = "CPUID leaf 0, answered by KVM", .body = "cpuid",
         .expect = kernel_exits(1)},
        {.name = "vmcall",
         .summary = "hypercall with rax=0 (VMCALL on Intel, VMMCALL on AMD), handled by KVM",
         .body = Body("vmcall", "vmmcall"), .expect = kernel_exits(1), .needs = {known_vendor()},
         .known_issues = {{vmm::Backend::Pvm, "kvm_pvm livelocks on a CPL0 VMCALL/VMMCALL; the "
                                              "watchdog reports it as hung"}}},
        {.name = "wbinvd", .summary = "WBINVD, intercepted by KVM", .body = "wbinvd",
         .expect = kernel_exits(1)},
        {.name = "invd", .summary = "INVD (opt-in: it drops dirty cache lines on bare metal)",
         .body = "invd", .expect = kernel_exits(1), .needs = {invd_opt_in()}},
        {.name = "mov_from_cr8", .summary = "read CR8 (TPR)", .body = "mov_from_cr8",
         .expect = kernel_exits(1).maybe_none(no_cr8_exit)},
        {.name = "mov_to_cr8", .summary = "write 0 to CR8 (TPR)", .body = "mov_to_cr8",
         .expect = kernel_exits(1).maybe_none(no_cr8_exit)},
        {.name = "inl_from_pmtimer", .summary = "read the ACPI PM timer, a userspace device here",
         .body = "inl_from_pmtimer", .expect = user_io_exits(1), .fixture = pm_timer_fixture()},
        {.name = "inl_from_qemu", .summary = "32-bit port read that exits to the VMM's userspace device",
         .body = "inl_from_qemu", .expect = user_io_exits(1), .aliases = {"inl_from_user"}},
        {.name = "inl_from_kernel", .summary = "port read of ELCR (0x4d0), emulated by the in-kernel PIC",
         .body = "inl_from_kernel", .expect = kernel_exits(1)},
        {.name = "outl_to_kernel", .summary = "port write of ELCR (0x4d0), emulated by the in-kernel PIC",
         .body = "outl_to_kernel", .expect = kernel_exits(1)},
        {.name = "mov_dr", .summary = "MOV DR7 <- 0x400", .body = "mov_dr",
         .expect = kernel_exits(1).maybe_none(
             "KVM stops intercepting DR accesses after the first one when no host debugger uses them")},
        {.name = "wr_kernel_gs_base", .summary = "WRMSR KERNEL_GS_BASE", .body = "wr_kernel_gs_base",
         .expect = kernel_exits(1).maybe_none("VMX and SVM usually pass KERNEL_GS_BASE through")},
        {.name = "wr_tsx_ctrl_msr", .summary = "WRMSR TSX_CTRL=0", .body = "wr_tsx_ctrl_msr",
         .expect = kernel_exits(1),
         .needs = {cpuid_any({{"ARCH_CAPABILITIES", 7, 3, 29}})}},
        {.name = "wr_ibrs_msr", .summary = "WRMSR SPEC_CTRL=1 then 0 (two writes per iteration)",
         .body = "wr_ibrs_msr",
         .expect = kernel_exits(2).maybe_none(
             "KVM stops intercepting SPEC_CTRL after the guest's first non-zero write"),
         .needs = {cpuid_any({{"SPEC_CTRL", 7, 3, 26}})}},
        {.name = "wr_ibpb_msr", .summary = "WRMSR PRED_CMD=IBPB", .body = "wr_ibpb_msr",
         .expect = kernel_exits(1).maybe_none("KVM passes PRED_CMD through once the guest has IBPB"),
         .needs = {cpuid_any({{"SPEC_CTRL", 7, 3, 26}, {"AMD_IBPB", 0x80000008, 1, 12}})}},
        {.name = "wr_tsc_adjust_msr", .summary = "WRMSR IA32_TSC_ADJUST=0", .body = "wr_tsc_adjust_msr",
         .expect = kernel_exits(1)},
        {.name = "rd_tsc_adjust_msr", .summary = "RDMSR IA32_TSC_ADJUST", .body = "rd_tsc_adjust_msr",
         .expect = kernel_exits(1)},
        {.name = "toggle_cr0_wp", .summary = "CR0 write without WP, then with WP (two writes)",
         .body = "toggle_cr0_wp",
         .expect = kernel_exits(2).maybe_none("KVM lets the guest own CR0.WP with EPT/NPT (Linux 6.5+)")},
        {.name = "toggle_cr4_pge", .summary = "CR4 ^= PGE, then restore (two writes, TLB flushes)",
         .body = "toggle_cr4_pge", .expect = kernel_exits(2)},
        {.name = "mmio-no-eventfd:pci-mem", .summary = "32-bit MMIO write to a BAR-like window, to userspace",
         .body = "testdev_mmio_write", .expect = user_mmio_exits(1),
         .fixture = testdev_fixture(Space::Mmio, Delivery::ToUser)},
        {.name = "mmio-wildcard-eventfd:pci-mem",
         .summary = "the same write, eaten by a zero-length (fast MMIO) ioeventfd in KVM",
         .body = "testdev_mmio_write", .expect = kernel_exits(1),
         .needs = {capability(EB_CAP(IOEVENTFD)), capability(EB_CAP(IOEVENTFD_NO_LENGTH))},
         .fixture = testdev_fixture(Space::Mmio, Delivery::WildcardEventfd)},
        {.name = "mmio-datamatch-eventfd:pci-mem",
         .summary = "the same write, eaten by a 4-byte datamatch ioeventfd in KVM",
         .body = "testdev_mmio_write", .expect = kernel_exits(1),
         .needs = {capability(EB_CAP(IOEVENTFD))},
         .fixture = testdev_fixture(Space::Mmio, Delivery::DatamatchEventfd)},
        {.name = "portio-no-eventfd:pci-io", .summary = "32-bit port write to a PIO window, to userspace",
         .body = "testdev_pio_write", .expect = user_io_exits(1),
         .fixture = testdev_fixture(Space::Pio, Delivery::ToUser)},
        {.name = "portio-wildcard-eventfd:pci-io",
         .summary = "the same write, eaten by a 4-byte ioeventfd in KVM",
         .body = "testdev_pio_write", .expect = kernel_exits(1),
         .needs = {capability(EB_CAP(IOEVENTFD))},
         .fixture = testdev_fixture(Space::Pio, Delivery::WildcardEventfd)},
        {.name = "portio-datamatch-eventfd:pci-io",
         .summary = "the same write, eaten by a datamatch ioeventfd in KVM",
         .body = "testdev_pio_write", .expect = kernel_exits(1),
         .needs = {capability(EB_CAP(IOEVENTFD))},
         .fixture = testdev_fixture(Space::Pio, Delivery::DatamatchEventfd)},
        {.name = "mmio_from_user",
         .summary = "32-bit MMIO read of a GPA with no memslot, answered by the VMM",
         .body = "mmio_from_user", .expect = user_mmio_exits(1)},

        // Self-tests of the harness: each misbehaves on purpose.
        {.name = "selftest_fault", .summary = "executes UD2: must come back as a reported #UD",
         .body = "selftest_fault", .expect = no_exit(), .internal = true},
        {.name = "selftest_hang", .summary = "spins forever: the watchdog must stop it",
         .body = "selftest_hang", .expect = no_exit(), .internal = true},
        {.name = "selftest_unexpected_exit",
         .summary = "writes a port no device serves: an unexpected exit",
         .body = "selftest_unexpected_exit", .expect = no_exit(), .internal = true},
        {.name = "selftest_fail", .summary = "its setup reports a failed check",
         .body = "selftest_fail", .expect = no_exit(), .internal = true},
    };
}

} // namespace

const std::vector<TestSpec>& registry() {
    static const std::vector<TestSpec> r = build();
    return r;
}

const TestSpec* find_test(std::string_view name) {
    for (const auto& t : registry()) {
        if (t.name == name) return &t;
        for (const auto& a : t.aliases)
            if (a == name) return &t;
    }
    return nullptr;
}

} // namespace eb::suite
