#include "suite/kut_diff.h"

#include <algorithm>
#include <fmt/format.h>

namespace eb::suite {

namespace {
// Every fact below was read from kvm-unit-tests' x86/vmexit.c and lib/x86
// (commit 1da1819e) and from exitbench's guest/bodies, vmm and suite.
const std::vector<KutDifference> kDifferences = {
    {{}, "plain rdtsc before and after a batch",
     "lfence; rdtsc before and after a batch",
     "the fence keeps the batch's last instructions inside the window; a few cycles a batch, "
     "nothing per iteration"},
    {{}, "doubles a batch from 64 iterations until one takes 2^30 cycles and prints that last batch's "
         "cycles per iteration",
     "doubles from 64 until a batch takes 1/16 of --time-goal (20 ms), then scales it to 1.05 goals "
     "(a first batch over 2 goals is cut to the goal), discards those, measures --repeats batches of "
     "that size in each of --sessions fresh VMs; prints the median of the repeats (the geometric mean "
     "of session medians), also with --format kut",
     "vmexit.flat's figure is one batch, ours a centre with an interval; the two agree when the "
     "batches agree"},
    {{}, "calls the body through a function pointer every iteration",
     "the body is inlined in the loop; the `baseline` test measures what the loop costs",
     "a call and a return less per iteration here; vmexit.flat has no baseline to subtract"},
    {{}, "runs under QEMU: userspace exits go to QEMU's memory dispatch, and QEMU's PIT, PIC and "
         "IOAPIC are there (on AMD the PIT inhibits AVIC unless `-machine pit=off`, which its "
         "configuration passes for `ipi` only)",
     "runs under exitbench's own VMM: an in-kernel irqchip, no PIT, and device handlers called "
     "directly from the vCPU loop",
     "the kernel and hardware round trip is the same; the userspace part of a userspace exit is "
     "a different program (`run` reports ours apart)"},
    {{}, "enables interrupts (sti) once for every test",
     "only the interrupt tests' setups enable interrupts", "none while no interrupt is pending"},
    // Instruction counts: vmexit.c's from its source, its loop taken as an
    // indirect call, an increment, a compare and a branch (the body cannot be
    // inlined through the pointer); exitbench's from objdump of guest/bodies'
    // batch loop as built here (gcc 12, -O2).
    {{"cpuid"}, "push rbx; cpuid; pop rbx, with whatever EAX and ECX the compiler left (the leaf is "
                "unspecified): 8 instructions an iteration with the call, ret and loop, 1 CPUID",
     "CPUID leaf 0, subleaf 0 (EAX and ECX set to 0 every iteration, RBX a clobber, not pushed): "
     "6 instructions an iteration with the loop, 1 CPUID",
     "the same exit; KVM's lookup depends on the leaf (an out-of-range leaf is looked up again as "
     "the highest basic one), so the two may differ by that, and by 2 instructions of guest time"},
    {{"mov_from_cr8", "mov_to_cr8"}, "mov %cr8 into a register / mov a zeroed register to %cr8: 6 and 7 "
                                     "instructions an iteration with the call, ret and loop",
     "the same mov from %cr8 / to %cr8 (0): 4 instructions an iteration each, with the loop",
     "the same CR8 access; whether it exits at all is KVM's (the TPR shadow on VMX, the CR8 write "
     "intercept on SVM), alike for both; 2 and 3 instructions less of guest time here"},
    {{"invd"}, "always runs INVD", "runs INVD only with --allow-invd",
     "none when it runs; INVD drops dirty cache lines on bare metal, so it is opt-in here"},
    {{"inl_from_pmtimer"}, "finds the PM timer port in the ACPI FADT; QEMU's ACPI device answers",
     "port 0x608 answered by exitbench's PM timer (CLOCK_MONOTONIC scaled to 3.579545 MHz)",
     "same exit; the userspace handler is a different program"},
    {{"inl_from_qemu"}, "reads port 0x1234, which no QEMU device claims (QEMU's unassigned-I/O path answers)",
     "reads port 0x1234 from a device of exitbench's VMM that returns a fixed value (checked once in setup)",
     "same exit; the userspace handler differs (`run` reports ours and the kernel round trip apart)"},
    {{"tscdeadline_immed"}, "writes the deadline = now, then CPUID to serialize (a second exit); does "
                            "not wait for the interrupt",
     "writes the deadline = now and waits with PAUSE until the timer interrupt was handled; no CPUID",
     "on hardware KVM injects the expired timer at the next entry, so both include it, and "
     "vmexit.flat adds a CPUID exit; on kvm_pvm delayed injection makes ours far larger"},
    {{"tscdeadline"}, "waits for the interrupt spinning on a plain read",
     "waits with PAUSE, giving up after the watchdog's interrupt wait",
     "PAUSE in the wait can trip pause-loop exiting, one more exit (the expectation allows it)"},
    {{"self_ipi_sti_nop", "self_ipi_sti_hlt", "self_ipi_tpr", "self_ipi_tpr_sti_nop", "self_ipi_tpr_sti_hlt"},
     "brackets the ICR write and the handler's EOI with rdtsc pairs (printing ipi and eoi lines), "
     "resets and checks a counter every iteration; in xAPIC mode polls the ICR's busy bit first",
     "no rdtsc in the body; the runtime counts the interrupts and the host checks one per "
     "iteration; no busy poll",
     "vmexit.flat's figure includes four rdtsc per iteration, and in xAPIC mode one MMIO read exit more"},
    {{"x2apic_self_ipi_sti_nop", "x2apic_self_ipi_sti_hlt", "x2apic_self_ipi_tpr", "x2apic_self_ipi_tpr_sti_nop",
      "x2apic_self_ipi_tpr_sti_hlt"},
     "brackets the SELF_IPI write and the EOI with rdtsc pairs; does not check that the interrupt came",
     "no rdtsc in the body; the host checks one interrupt per iteration (a lost one fails the test)",
     "vmexit.flat's figure includes four rdtsc per iteration, and counts an iteration whose "
     "interrupt never came"},
    {{"ipi", "ipi_halt"}, "on_cpu: takes a spinlock, stores a function for the target, writes the ICR and "
                          "spins without PAUSE until the target ran it; rdtsc pair around all of it",
     "stamps the TSC (for the delivery latency), writes the ICR and waits with PAUSE for the target's "
     "acknowledgement; both targets acknowledge before their EOI",
     "a few dozen cycles of bookkeeping either way; PAUSE in the wait can trip pause-loop exiting"},
    {{"ple_round_robin"}, "one counter per vCPU on its own cache line; each waits for its own to move",
     "one shared token; each vCPU waits for its turn (token mod vCPUs)",
     "none with one vCPU (vmexit.flat's default); with more, every vCPU polls the one line here"},
    {{"toggle_cr0_wp"}, "writes the constants PE+PG then PE+WP+PG (its CR0 has no other bit set): "
                        "9 instructions an iteration with the call, ret and loop, 2 CR0 writes",
     "clears and sets WP in the CR0 it boots with (PE MP ET NE WP PG), read from a copy taken in "
     "setup: 8 instructions an iteration with the loop, 2 CR0 writes",
     "the same two CR0 writes, flipping only WP; the other bits differ but stay put (whether a WP "
     "flip exits is KVM's: it may give the guest CR0.WP with EPT, alike for both)"},
    {{"toggle_cr4_pge"}, "writes its CR4 copy with PGE flipped, then the copy: 10 instructions an "
                         "iteration with the call, ret and loop, 2 CR4 writes",
     "the same, from a copy taken in setup: 8 instructions an iteration with the loop, 2 CR4 writes",
     "the same two CR4 writes, each flushing the TLB with its global entries; 2 instructions less "
     "of guest time here"},
    {{"pci-mem"}, "finds QEMU's pci-testdev and runs each of its MMIO cases: a 1-byte write of 0xfa at "
                  "the case's offset",
     "a 4-byte write of 0x7e57da7a to a BAR-like window of exitbench's (no PCI), to userspace or to a "
     "zero-length (fast MMIO) or 4-byte datamatch ioeventfd",
     "same delivery paths (pci-testdev uses a zero-length ioeventfd too); the access is 4 bytes wide, "
     "not 1, and the userspace handler is ours"},
    {{"pci-io"}, "runs each of pci-testdev's port I/O cases: a 1-byte OUT of 0xfa, to QEMU or to a "
                 "1-byte ioeventfd with or without datamatch",
     "a 4-byte OUT of 0x7e57da7a to a port window of exitbench's, to userspace or to a 4-byte "
     "ioeventfd with or without datamatch",
     "same delivery paths; the access is 4 bytes wide, not 1, and the userspace handler is ours"},
};

const std::vector<KutTest> kTests = {
    {"cpuid", {"cpuid"}}, {"vmcall", {"vmcall"}}, {"wbinvd", {"wbinvd"}}, {"invd", {"invd"}},
    {"mov_from_cr8", {"mov_from_cr8"}}, {"mov_to_cr8", {"mov_to_cr8"}},
    {"inl_from_pmtimer", {"inl_from_pmtimer"}}, {"inl_from_qemu", {"inl_from_qemu"}},
    {"inl_from_kernel", {"inl_from_kernel"}}, {"outl_to_kernel", {"outl_to_kernel"}}, {"mov_dr", {"mov_dr"}},
    {"tscdeadline_immed", {"tscdeadline_immed"}}, {"tscdeadline", {"tscdeadline"}},
    {"self_ipi_sti_nop", {"self_ipi_sti_nop"}}, {"self_ipi_sti_hlt", {"self_ipi_sti_hlt"}},
    {"self_ipi_tpr", {"self_ipi_tpr"}}, {"self_ipi_tpr_sti_nop", {"self_ipi_tpr_sti_nop"}},
    {"self_ipi_tpr_sti_hlt", {"self_ipi_tpr_sti_hlt"}},
    {"x2apic_self_ipi_sti_nop", {"x2apic_self_ipi_sti_nop"}}, {"x2apic_self_ipi_sti_hlt", {"x2apic_self_ipi_sti_hlt"}},
    {"x2apic_self_ipi_tpr", {"x2apic_self_ipi_tpr"}}, {"x2apic_self_ipi_tpr_sti_nop", {"x2apic_self_ipi_tpr_sti_nop"}},
    {"x2apic_self_ipi_tpr_sti_hlt", {"x2apic_self_ipi_tpr_sti_hlt"}},
    {"ipi", {"ipi"}}, {"ipi_halt", {"ipi_halt"}}, {"ple_round_robin", {"ple_round_robin"}},
    {"wr_kernel_gs_base", {"wr_kernel_gs_base"}}, {"wr_tsx_ctrl_msr", {"wr_tsx_ctrl_msr"}},
    {"wr_ibrs_msr", {"wr_ibrs_msr"}}, {"wr_ibpb_msr", {"wr_ibpb_msr"}},
    {"wr_tsc_adjust_msr", {"wr_tsc_adjust_msr"}}, {"rd_tsc_adjust_msr", {"rd_tsc_adjust_msr"}},
    {"toggle_cr0_wp", {"toggle_cr0_wp"}}, {"toggle_cr4_pge", {"toggle_cr4_pge"}},
    {"pci-mem", {"mmio-no-eventfd:pci-mem", "mmio-wildcard-eventfd:pci-mem", "mmio-datamatch-eventfd:pci-mem"}},
    {"pci-io", {"portio-no-eventfd:pci-io", "portio-wildcard-eventfd:pci-io", "portio-datamatch-eventfd:pci-io"}},
};

bool concerns(const KutDifference& d, std::string_view kut) {
    return std::find(d.kut.begin(), d.kut.end(), kut) != d.kut.end();
}
} // namespace

const std::vector<KutTest>& kut_tests() { return kTests; }
const std::vector<KutDifference>& kut_differences() { return kDifferences; }

std::string_view kut_name_of(std::string_view registry_name) {
    for (const auto& t : kTests)
        if (std::find(t.tests.begin(), t.tests.end(), registry_name) != t.tests.end()) return t.kut;
    return {};
}

std::vector<const KutDifference*> kut_differences_of(std::string_view registry_name) {
    std::vector<const KutDifference*> out;
    auto kut = kut_name_of(registry_name);
    if (kut.empty()) return out;
    for (const auto& d : kDifferences)
        if (concerns(d, kut)) out.push_back(&d);
    return out;
}

std::vector<std::string_view> kut_same_body() {
    std::vector<std::string_view> out;
    for (const auto& t : kTests)
        if (std::none_of(kDifferences.begin(), kDifferences.end(),
                         [&](const KutDifference& d) { return concerns(d, t.kut); }))
            out.push_back(t.kut);
    return out;
}

std::string kut_differences_markdown() {
    std::string out = "| tests | vmexit.c | exitbench | effect on the figure |\n|---|---|---|---|\n";
    for (const auto& d : kDifferences) {
        std::string tests = d.kut.empty() ? "every test" : fmt::format("`{}`", fmt::join(d.kut, "`, `"));
        out += fmt::format("| {} | {} | {} | {} |\n", tests, d.vmexit_c, d.exitbench, d.effect);
    }
    out += fmt::format("\nThe same instructions as vmexit.c (only the rows for every test apply): `{}`.\n",
                       fmt::join(kut_same_body(), "`, `"));
    return out;
}

} // namespace eb::suite
