#include "suite/registry.h"

#include <algorithm>

#include "guest/abi.h"
#include "guest/bodies/self_ipi_family.h"

namespace eb::suite {

namespace {

// The self-IPI family's variants, from the list the guest's bodies come from.
struct SelfIpiVariant {
    const char* suffix;
    const char* window;
    double max_exits;
    bool lost_on_pvm;
};
constexpr SelfIpiVariant kSelfIpiVariants[] = {
#define EB_SELF_IPI_VARIANT(suffix, window, max_exits, lost_on_pvm) {#suffix, window, max_exits, lost_on_pvm},
    EB_SELF_IPI_VARIANTS(EB_SELF_IPI_VARIANT)
#undef EB_SELF_IPI_VARIANT
};

// The self-IPI tests differ only in the window and how the IPI is sent.
void add_self_ipi_tests(std::vector<TestSpec>& out, bool x2) {
    const std::string prefix = x2 ? "x2apic_self_ipi_" : "self_ipi_";
    const std::string how = x2 ? "self-IPI via the x2APIC SELF_IPI MSR"
                               : "self-IPI via the ICR (an MSR write in x2APIC mode, MMIO in xAPIC)";
    const std::string lost_here =
        "kvm_pvm injects interrupts only between emulation batches, so an interrupt is "
        "not taken in a one-instruction window";
    for (const auto& v : kSelfIpiVariants) {
        TestSpec t{.name = prefix + v.suffix,
                   .summary = how + ", taken in the window " + v.window,
                   .body = Body((prefix + v.suffix).c_str()),
                   .expect = kernel_exits(1)
                                 .up_to(v.max_exits)
                                 .maybe_none("APICv/AVIC can virtualize the IPI, EOI and TPR")
                                 .with_irqs(1),
                   .trace = traced_ipi(),
                   .needs = {}};
        if (x2) t.needs.push_back(x2apic_mode());
        if (v.lost_on_pvm) t.known_issues = {{vmm::Backend::Pvm, lost_here}};
        out.push_back(std::move(t));
    }
}

// vmexit.flat's tests up to tscdeadline, in its order.
std::vector<TestSpec> kut_basic_tests() {
    const std::string no_cr8_exit =
        "with an in-kernel LAPIC, VMX's TPR shadow and SVM's CR8 handling usually let the guest "
        "access CR8 without an exit";
    return {
        {.name = "baseline", .summary = "empty loop body: the loop overhead every other test carries",
         // No trace check: with more vCPUs than host CPUs the other vCPUs' events land in its
         // window (0.08 exits/iter at --smp 9 on 2 CPUs), which a zero-exit check cannot tell apart.
         .body = "baseline", .expect = no_exit()},
        {.name = "cpuid", .summary = "CPUID leaf 0, answered by KVM", .body = "cpuid",
         .expect = kernel_exits(1), .trace = traced_cpuid(0), .parallel = true},
        {.name = "vmcall",
         .summary = "hypercall with rax=0 (VMCALL on Intel, VMMCALL on AMD), handled by KVM",
         .body = Body("vmcall", "vmmcall"), .expect = kernel_exits(1), .needs = {known_vendor()}, .parallel = true,
         .known_issues = {{vmm::Backend::Pvm, "kvm_pvm livelocks on a CPL0 VMCALL/VMMCALL; the "
                                              "watchdog reports it as hung"}},
         .livelocks_on = {vmm::Backend::Pvm}},
        {.name = "wbinvd", .summary = "WBINVD, intercepted by KVM", .body = "wbinvd",
         .expect = kernel_exits(1), .trace = traced_emulated({0x0f, 0x09}), .parallel = true},
        {.name = "invd", .summary = "INVD (opt-in: it drops dirty cache lines on bare metal)",
         .body = "invd", .expect = kernel_exits(1), .needs = {invd_opt_in()}, .parallel = true},
        {.name = "mov_from_cr8", .summary = "read CR8 (TPR)", .body = "mov_from_cr8",
         .expect = kernel_exits(1).maybe_none(no_cr8_exit), .trace = traced_emulated({0x44, 0x0f, 0x20}),
         .parallel = true},
        {.name = "mov_to_cr8", .summary = "write 0 to CR8 (TPR)", .body = "mov_to_cr8",
         .expect = kernel_exits(1).maybe_none(no_cr8_exit), .trace = traced_emulated({0x44, 0x0f, 0x22}),
         .parallel = true},
        {.name = "inl_from_pmtimer", .summary = "read the ACPI PM timer, a userspace device here",
         .body = "inl_from_pmtimer", .expect = user_io_exits(1), .fixture = pm_timer_fixture(), .parallel = true},
        {.name = "inl_from_qemu", .summary = "32-bit port read that exits to the VMM's userspace device",
         .body = "inl_from_qemu", .expect = user_io_exits(1), .aliases = {"inl_from_user"}, .parallel = true},
        {.name = "inl_from_kernel", .summary = "port read of ELCR (0x4d0), emulated by the in-kernel PIC",
         .body = "inl_from_kernel", .expect = kernel_exits(1), .trace = traced_pio(0x4d0), .parallel = true},
        {.name = "outl_to_kernel", .summary = "port write of ELCR (0x4d0), emulated by the in-kernel PIC",
         .body = "outl_to_kernel", .expect = kernel_exits(1), .trace = traced_pio(0x4d0), .parallel = true},
        {.name = "mov_dr", .summary = "MOV DR7 <- 0x400", .body = "mov_dr",
         .expect = kernel_exits(1).maybe_none(
             "KVM stops intercepting DR accesses after the first one when no host debugger uses them"),
         .trace = traced_emulated({0x0f, 0x23}), .parallel = true},
        {.name = "tscdeadline_immed",
         .summary = "TSC-deadline timer armed for now; wait for its interrupt",
         .body = "tscdeadline_immed",
         .expect = kernel_exits(1).up_to(3).maybe_none("APICv can virtualize the EOI").with_irqs(1),
         .trace = traced_msr(0x6e0), .needs = {cpuid_any({cpuid::kTscDeadline})}, .parallel = true},
        {.name = "tscdeadline", .summary = "TSC-deadline timer armed 3000 cycles ahead; wait for it",
         .body = "tscdeadline",
         .expect = kernel_exits(1).up_to(3).maybe_none("APICv can virtualize the EOI").with_irqs(1),
         .trace = traced_msr(0x6e0), .needs = {cpuid_any({cpuid::kTscDeadline})}, .parallel = true},
    };
}

// vmexit.flat's tests after the self-IPIs: IPIs, PLE, MSRs and CRs.
std::vector<TestSpec> kut_ipi_msr_cr_tests() {
    return {
        {.name = "ipi", .summary = "IPI to a halted vCPU 1 and wait for its acknowledgement",
         .body = "ipi", .expect = kernel_exits(1).up_to(3).maybe_none("IPI virtualization").with_irqs(1),
         .trace = traced_ipi(), .min_vcpus = 2},
        {.name = "ipi_halt", .summary = "as ipi, then spin 2000 cycles so the target halts again",
         .body = "ipi_halt",
         .expect = kernel_exits(1).up_to(3).maybe_none("IPI virtualization").with_irqs(1),
         .trace = traced_ipi(), .min_vcpus = 2},
        {.name = "ple_round_robin",
         .summary = "token passed round all vCPUs, each waiting with PAUSE (parallel)",
         .body = "ple_round_robin",
         .expect = kernel_exits(0).up_to(1),
         // The token's hand-off (its store), once per iteration on each vCPU: the spin count varies.
         .trace = traced_emulated({0x48, 0x89, 0x0d}), .parallel = true},
        {.name = "wr_kernel_gs_base", .summary = "WRMSR KERNEL_GS_BASE", .body = "wr_kernel_gs_base",
         .expect = kernel_exits(1).maybe_none("VMX and SVM usually pass KERNEL_GS_BASE through"),
         .trace = traced_msr(0xc0000102), .parallel = true},
        {.name = "wr_tsx_ctrl_msr", .summary = "WRMSR TSX_CTRL=0", .body = "wr_tsx_ctrl_msr",
         .expect = kernel_exits(1), .trace = traced_msr(0x122),
         .needs = {cpuid_any({cpuid::kArchCapabilities})}, .parallel = true},
        {.name = "wr_ibrs_msr", .summary = "WRMSR SPEC_CTRL=1 then 0 (two writes per iteration)",
         .body = "wr_ibrs_msr",
         .expect = kernel_exits(2).maybe_none(
             "KVM stops intercepting SPEC_CTRL after the guest's first non-zero write"),
         .trace = traced_msr(0x48),
         .needs = {cpuid_any({cpuid::kSpecCtrl})}, .parallel = true},
        {.name = "wr_ibpb_msr", .summary = "WRMSR PRED_CMD=IBPB", .body = "wr_ibpb_msr",
         .expect = kernel_exits(1).maybe_none("KVM passes PRED_CMD through once the guest has IBPB"),
         .trace = traced_msr(0x49),
         .needs = {cpuid_any({cpuid::kSpecCtrl, cpuid::kAmdIbpb})}, .parallel = true},
        {.name = "wr_tsc_adjust_msr", .summary = "WRMSR IA32_TSC_ADJUST=0", .body = "wr_tsc_adjust_msr",
         .expect = kernel_exits(1), .trace = traced_msr(0x3b), .parallel = true},
        {.name = "rd_tsc_adjust_msr", .summary = "RDMSR IA32_TSC_ADJUST", .body = "rd_tsc_adjust_msr",
         .expect = kernel_exits(1), .trace = traced_msr(0x3b), .parallel = true},
        {.name = "toggle_cr0_wp", .summary = "CR0 write without WP, then with WP (two writes)",
         .body = "toggle_cr0_wp",
         .expect = kernel_exits(2).maybe_none("KVM lets the guest own CR0.WP with EPT/NPT (Linux 6.5+)"),
         .trace = traced_emulated({0x0f, 0x22}, 2), .parallel = true},
        {.name = "toggle_cr4_pge", .summary = "CR4 ^= PGE, then restore (two writes, TLB flushes)",
         .body = "toggle_cr4_pge", .expect = kernel_exits(2), .trace = traced_emulated({0x0f, 0x22}, 2),
         .parallel = true},
    };
}

// vmexit.flat's pci-testdev tests: a write that exits to the VMM or is eaten
// by an ioeventfd in KVM.
std::vector<TestSpec> kut_testdev_tests() {
    return {
        {.name = "mmio-no-eventfd:pci-mem", .summary = "32-bit MMIO write to a BAR-like window, to userspace",
         .body = "testdev_mmio_write", .expect = user_mmio_exits(1),
         .fixture = testdev_fixture(kvm::AddrSpace::Mmio, Delivery::ToUser)},
        {.name = "mmio-wildcard-eventfd:pci-mem",
         .summary = "the same write, eaten by a zero-length (fast MMIO) ioeventfd in KVM",
         .body = "testdev_mmio_write", .expect = kernel_exits(1), .trace = traced_mmio(abi::kTestDevMmio),
         .needs = {capability(EB_CAP(IOEVENTFD)), capability(EB_CAP(IOEVENTFD_NO_LENGTH))},
         .fixture = testdev_fixture(kvm::AddrSpace::Mmio, Delivery::WildcardEventfd)},
        {.name = "mmio-datamatch-eventfd:pci-mem",
         .summary = "the same write, eaten by a 4-byte datamatch ioeventfd in KVM",
         .body = "testdev_mmio_write", .expect = kernel_exits(1), .trace = traced_mmio(abi::kTestDevMmio),
         .needs = {capability(EB_CAP(IOEVENTFD))},
         .fixture = testdev_fixture(kvm::AddrSpace::Mmio, Delivery::DatamatchEventfd)},
        {.name = "portio-no-eventfd:pci-io", .summary = "32-bit port write to a PIO window, to userspace",
         .body = "testdev_pio_write", .expect = user_io_exits(1),
         .fixture = testdev_fixture(kvm::AddrSpace::Pio, Delivery::ToUser)},
        {.name = "portio-wildcard-eventfd:pci-io",
         .summary = "the same write, eaten by a 4-byte ioeventfd in KVM",
         .body = "testdev_pio_write", .expect = kernel_exits(1), .trace = traced_pio(abi::kTestDevPort),
         .needs = {capability(EB_CAP(IOEVENTFD))},
         .fixture = testdev_fixture(kvm::AddrSpace::Pio, Delivery::WildcardEventfd)},
        {.name = "portio-datamatch-eventfd:pci-io",
         .summary = "the same write, eaten by a datamatch ioeventfd in KVM",
         .body = "testdev_pio_write", .expect = kernel_exits(1), .trace = traced_pio(abi::kTestDevPort),
         .needs = {capability(EB_CAP(IOEVENTFD))},
         .fixture = testdev_fixture(kvm::AddrSpace::Pio, Delivery::DatamatchEventfd)},
    };
}

// hlt_wake's TSC-deadline write, one of its 2-4 exits: that one is counted.
TraceKey deadline_write() {
    TraceKey k = traced_msr(0x6e0);
    k.per_iter = 1;
    return k;
}

// Exits vmexit.flat does not measure.
std::vector<TestSpec> beyond_kut_tests() {
    return {
        {.name = "xsetbv", .summary = "XSETBV XCR0 (unchanged value)", .body = "xsetbv",
         .expect = kernel_exits(1), .needs = {cpuid_any({cpuid::kXsave})}},
        {.name = "rdpmc", .summary = "RDPMC counter 0", .body = "rdpmc",
         .expect = kernel_exits(1).maybe_none("a passthrough (mediated) PMU does not intercept RDPMC")},
        {.name = "rdtscp", .summary = "RDTSCP: KVM does not intercept it; verify", .body = "rdtscp",
         .expect = no_exit(), .needs = {cpuid_any({cpuid::kRdtscp})}},
        {.name = "invlpg", .summary = "INVLPG of one page", .body = "invlpg",
         .expect = kernel_exits(1).maybe_none("with EPT/NPT KVM does not intercept INVLPG"),
         .trace = traced_emulated({0x0f, 0x01})},
        {.name = "invpcid", .summary = "INVPCID type 2 (all contexts, globals too)", .body = "invpcid",
         .expect = kernel_exits(1).maybe_none("with EPT, VMX executes INVPCID without an exit"),
         .needs = {cpuid_any({cpuid::kInvpcid})}},
        {.name = "monitor_mwait", .summary = "MONITOR then MWAIT (KVM treats MWAIT as a NOP)",
         .body = "monitor_mwait", .expect = kernel_exits(2).maybe_none("MWAIT passthrough (disabled exits)"),
         .needs = {cpuid_any({cpuid::kMonitor})}},
        {.name = "pause", .summary = "a single PAUSE: no exit unless a loop trips pause-loop exiting",
         .body = "pause", .expect = no_exit(), .trace = traced_emulated({0xf3, 0x90})},
        {.name = "npf_first_touch",
         .summary = "write to a page the host just unmapped: an EPT/NPT violation and a host fault",
         .body = "npf_first_touch", .expect = kernel_exits(1), .trace = traced_host_fault(1), .fixture = npf_fixture(),
         .max_iterations = abi::kNpfBytes / 4096},
        {.name = "string_pio_to_user", .summary = "REP INSB of 8 bytes from the VMM's port: one exit",
         .body = "string_pio_to_user", .expect = user_io_exits(1)},
        {.name = "hlt_wake", .summary = "HLT, woken by the TSC-deadline timer 2000 cycles later",
         .body = "hlt_wake",
         .expect = kernel_exits(2).up_to(4).maybe_none("APICv can virtualize the EOI").with_irqs(1),
         .trace = deadline_write(), .needs = {cpuid_any({cpuid::kTscDeadline})}},
        {.name = "irq_window",
         .summary = "self-IPI pending while IF=0; STI opens the interrupt window (irq_window_exits)",
         .body = "irq_window",
         .expect = kernel_exits(1).up_to(4).maybe_none("APICv/AVIC deliver without window exits").with_irqs(1),
         .known_issues = {{vmm::Backend::Pvm, "kvm_pvm injects interrupts only between emulation "
                                              "batches, so the window is missed"}}},
        {.name = "nmi_window",
         .summary = "self-NMI whose handler sends another: pending under NMI blocking until IRET",
         .body = "nmi_window",
         .expect = kernel_exits(2).up_to(6).maybe_none("vNMI can deliver without window exits").with_irqs(2),
         .trace = traced_ipi()},
        {.name = "hypercall_to_user",
         .summary = "KVM_HC_MAP_GPA_RANGE, sent to the VMM with KVM_CAP_EXIT_HYPERCALL",
         .body = Body("hypercall_to_user_intel", "hypercall_to_user_amd"), .expect = user_hypercall_exits(1),
         .needs = {known_vendor(), capability(EB_CAP(EXIT_HYPERCALL))}, .fixture = hypercall_exit_fixture(),
         .known_issues = {{vmm::Backend::Pvm, "kvm_pvm livelocks on a CPL0 VMCALL/VMMCALL; the "
                                              "watchdog reports it as hung"}},
         .livelocks_on = {vmm::Backend::Pvm}},
        {.name = "rdmsr_to_user", .summary = "RDMSR denied by the MSR filter: KVM_EXIT_X86_RDMSR",
         .body = "rdmsr_to_user", .expect = user_msr_exits(1),
         .needs = {capability(EB_CAP(X86_USER_SPACE_MSR)), capability(EB_CAP(X86_MSR_FILTER))},
         .fixture = msr_filter_fixture()},
        {.name = "wrmsr_to_user", .summary = "WRMSR denied by the MSR filter: KVM_EXIT_X86_WRMSR",
         .body = "wrmsr_to_user", .expect = user_msr_exits(1),
         .needs = {capability(EB_CAP(X86_USER_SPACE_MSR)), capability(EB_CAP(X86_MSR_FILTER))},
         .fixture = msr_filter_fixture()},
        {.name = "mmio_from_user",
         .summary = "32-bit MMIO read of a GPA with no memslot, answered by the VMM",
         .body = "mmio_from_user", .expect = user_mmio_exits(1)},
    };
}

// Self-tests of the harness: each misbehaves on purpose.
std::vector<TestSpec> harness_selftests() {
    return {
        {.name = "selftest_fault", .summary = "executes UD2: must come back as a reported #UD",
         .body = "selftest_fault", .expect = no_exit(), .internal = true},
        {.name = "selftest_hang", .summary = "spins forever: the watchdog must stop it",
         .body = "selftest_hang", .expect = no_exit(), .internal = true},
        {.name = "selftest_unexpected_exit",
         .summary = "writes a port no device serves: an unexpected exit",
         .body = "selftest_unexpected_exit", .expect = no_exit(), .internal = true},
        {.name = "selftest_fail", .summary = "its setup reports a failed check",
         .body = "selftest_fail", .expect = no_exit(), .internal = true},
        {.name = "selftest_ap_fail", .summary = "its setup fails on the APs only: the AP must be named",
         .body = "selftest_ap_fail", .expect = no_exit(), .min_vcpus = 2, .parallel = true, .internal = true},
    };
}

// The registry in KUT's order, our additions and the self-tests after it.
std::vector<TestSpec> build() {
    std::vector<TestSpec> tests;
    auto append = [&](std::vector<TestSpec> more) {
        tests.insert(tests.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    };
    append(kut_basic_tests());
    add_self_ipi_tests(tests, false);
    add_self_ipi_tests(tests, true);
    append(kut_ipi_msr_cr_tests());
    append(kut_testdev_tests());
    append(beyond_kut_tests());
    append(harness_selftests());
    return tests;
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

std::optional<std::string> expected_failure(vmm::Backend backend, const TestResult& t) {
    if (!is_failure(t.status) || t.status == Status::Error) return std::nullopt;
    const TestSpec* spec = find_test(t.name);
    return spec ? spec->known_issue(backend) : std::nullopt;
}

std::optional<std::string> expected_failure(const RunReport& r, const TestResult& t) {
    if (auto known = expected_failure(r.host.backend, t)) return known;
    if (execution_of(r) != "emulated" || !is_failure(t.status) || t.status == Status::Error) return std::nullopt;
    if (t.name == "xsetbv" && t.status == Status::Mismatch)
        return "QEMU's TCG executes XSETBV without checking the SVM intercept, so there is no exit to measure "
               "(emulated; real SVM intercepts it)";
    if (t.status == Status::Hung && (t.name.ends_with("sti_hlt") || t.name == "hlt_wake"))
        return "under QEMU's TCG a sti;hlt wake is lost now and then, and the watchdog ends the test (emulated)";
    return std::nullopt;
}

bool has_unexpected_failure(const RunReport& r) {
    return std::any_of(r.results.begin(), r.results.end(),
                       [&](const TestResult& t) { return is_failure(t.status) && !expected_failure(r, t); });
}

} // namespace eb::suite
