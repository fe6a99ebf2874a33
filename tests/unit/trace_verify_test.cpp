// Exit verification through kvm tracepoints: counting in the batch windows
// and judging against the expectation.
#include <gtest/gtest.h>

#include "lab/trace_verify.h"
#include "suite/registry.h"
#include "vmm/guest_symbols.h"

using namespace eb;
using profile::Event;
using profile::EventType;

namespace {
Event ev(uint64_t ts, EventType t, uint64_t a, uint64_t b = 0) { return Event{ts, 1, 0, 0, t, 0, 0, a, b}; }
} // namespace

TEST(TraceVerify, CountsOnlyTheKeyInsideTheWindows) {
    std::vector<Event> v = {ev(5, EventType::Msr, 0x3b),   ev(10, EventType::Msr, 0x3b),
                            ev(11, EventType::Msr, 0x48),  ev(12, EventType::Pio, 0x3b),
                            ev(20, EventType::Msr, 0x3b),  ev(25, EventType::Msr, 0x3b),
                            ev(40, EventType::Msr, 0x3b)};
    std::vector<std::pair<int64_t, int64_t>> w = {{10, 20}, {30, 45}};
    EXPECT_EQ(lab::count_trace_hits(v, suite::traced_msr(0x3b), w), 3u);
    EXPECT_EQ(lab::count_trace_hits(v, suite::traced_pio(0x3b), w), 1u);
    // kvm_mmio's unsatisfied-read record is not a second access.
    std::vector<Event> m = {ev(1, EventType::Mmio, 0xd0001000, profile::kMmioUnsatisfiedRead),
                            ev(2, EventType::Mmio, 0xd0001000, profile::kMmioWrite)};
    EXPECT_EQ(lab::count_trace_hits(m, suite::traced_mmio(0xd0001000), {{0, 9}}), 1u);
}

TEST(TraceVerify, JudgesAgainstTheExpectation) {
    const auto* t = suite::find_test("wr_ibrs_msr");  // two writes per iteration
    ASSERT_TRUE(t);
    suite::TestResult r;
    r.status = suite::Status::Unverified;
    lab::apply_trace_check(r, *t, 512, 256);
    EXPECT_EQ(r.status, suite::Status::Ok);
    EXPECT_EQ(suite::status_label(r), "ok (trace)");
    EXPECT_NE(r.exits.source.find("kvm_msr 0x48"), std::string::npos) << r.exits.source;
    lab::apply_trace_check(r, *t, 256, 256);  // one write per iteration: not what the body does
    EXPECT_EQ(r.status, suite::Status::Mismatch);
    lab::apply_trace_check(r, *t, 0, 256);    // SPEC_CTRL may be passed through
    EXPECT_EQ(r.status, suite::Status::NoExit);

    const auto* k = suite::find_test("inl_from_kernel");
    lab::apply_trace_check(r, *k, 0, 256);    // a port read that must exit
    EXPECT_EQ(r.status, suite::Status::Mismatch);
    EXPECT_EQ(suite::status_label(r), "mismatch");
}

TEST(TraceVerify, MsrPioAndMmioTestsNameTheirTracepoint) {
    for (const char* name : {"rd_tsc_adjust_msr", "wr_tsc_adjust_msr", "inl_from_kernel", "outl_to_kernel",
                             "mmio-datamatch-eventfd:pci-mem", "portio-datamatch-eventfd:pci-io"})
        EXPECT_NE(suite::find_test(name)->trace.event, suite::TraceKey::None) << name;
    EXPECT_EQ(lab::trace_key_name(suite::traced_pio(0x4d0)), "kvm_pio 0x4d0");
}

TEST(TraceVerify, KeyedByFieldValue) {
    std::vector<Event> v = {ev(10, EventType::Cpuid, 0),       ev(11, EventType::Cpuid, 0xd),
                            ev(12, EventType::ApicIpi, 0x4030), ev(13, EventType::AcceptIrq, 0x30),
                            ev(14, EventType::EmulateInsn, 0x102350), ev(15, EventType::EmulateInsn, 0x102352),
                            ev(16, EventType::HostFault, 0x7f0000001000)};
    std::vector<std::pair<int64_t, int64_t>> w = {{0, 100}};
    EXPECT_EQ(lab::count_trace_hits(v, suite::traced_cpuid(0), w), 1u);  // kvm_cpuid.function = 0 only
    EXPECT_EQ(lab::count_trace_hits(v, suite::traced_ipi(), w), 1u);
    EXPECT_EQ(lab::count_trace_hits(v, suite::traced_accept_irq(), w), 1u);
    EXPECT_EQ(lab::count_trace_hits(v, suite::traced_host_fault(1), w), 1u);
    auto wbinvd = suite::traced_emulated({0x0f, 0x09});
    EXPECT_EQ(lab::count_trace_hits(v, lab::trace_match(wbinvd, {0x102350}), w), 1u);
    EXPECT_EQ(lab::count_trace_hits(v, lab::trace_match(wbinvd), w), 0u);  // no RIP: nothing matches
    // No exit: every exit tracepoint counts against it, the emulator's does not.
    EXPECT_EQ(lab::count_trace_hits(v, suite::traced_no_exit(), w), 4u);
    EXPECT_EQ(lab::rip_filter({0x102350, 0x10235a}), "rip == 0x102350 || rip == 0x10235a");
}

TEST(TraceVerify, StatusSaysWhatWasCounted) {
    const auto* t = suite::find_test("wbinvd");
    ASSERT_TRUE(t);
    suite::TestResult r;
    r.status = suite::Status::Unverified;
    lab::apply_trace_check(r, *t, 256, 256, " at rip 0x102350 (0f 09)");
    EXPECT_EQ(r.status, suite::Status::Ok);
    EXPECT_EQ(suite::status_label(r), "ok (trace)");
    EXPECT_EQ(suite::status_text(r), "ok (trace: emulated 1.00/iter)");
    EXPECT_NE(r.exits.source.find("at rip 0x102350 (0f 09)"), std::string::npos) << r.exits.source;
    // pause expects no exit, but its instruction must run once an iteration in the emulator.
    const auto* p = suite::find_test("pause");
    lab::apply_trace_check(r, *p, 0, 256);
    EXPECT_EQ(r.status, suite::Status::Mismatch);
    const auto* h = suite::find_test("hlt_wake");  // 2-4 exits, of which the deadline write is traced
    lab::apply_trace_check(r, *h, 256, 256);
    EXPECT_EQ(r.status, suite::Status::Ok);
    EXPECT_EQ(suite::status_text(r), "ok (trace: kvm_msr 0x6e0 1.00/iter)");
    r.exits.source = "trace: kvm_msr 0x3b hits in a separate batch of 256 iterations";  // saved by an older build
    EXPECT_EQ(suite::status_text(r), "ok (trace)");
}

// The default suite's tests that exit in the kernel name a tracepoint, so a
// backend whose stats fd cannot count them still verifies them.
TEST(TraceVerify, EveryKernelExitHasATracepoint) {
    for (const auto& t : suite::registry()) {
        if (t.internal || t.expect.kind == suite::ExitKind::UserIo || t.expect.kind == suite::ExitKind::UserMmio ||
            t.expect.kind == suite::ExitKind::UserHypercall || t.expect.kind == suite::ExitKind::UserMsr)
            continue;
        // Not reached on kvm_pvm (hung or skipped there); named where they are.
        if (t.name == "vmcall" || t.name == "invd" || t.name == "irq_window" || t.name == "xsetbv" ||
            t.name == "rdpmc" || t.name == "rdtscp" || t.name == "invpcid" || t.name == "monitor_mwait")
            continue;
        // Its zero-exit check would count other vCPUs' events when they outnumber the host's CPUs.
        if (t.name == "baseline") continue;
        EXPECT_NE(t.trace.event, suite::TraceKey::None) << t.name;
    }
}

// The guest's symbols place each body's batch loop; its instruction is found there.
TEST(TraceVerify, BodyRipsComeFromTheGuestSymbols) {
    auto syms = vmm::parse_batch_symbols("0000000000102330 0000000000000040 t _ZL15eb_batch_wbinvdm\n"
                                         "0000000000102370 0000000000000060 t _ZL18eb_per_exit_wbinvdmPm\n"
                                         "00000000001040e0 0000000000000040 T eb_batch_pause\n"
                                         "garbage line\n"
                                         "zz 10 t _ZL15eb_batch_brokenm\n");
    ASSERT_EQ(syms.size(), 2u);
    EXPECT_EQ(syms["wbinvd"].begin, 0x102330u);
    EXPECT_EQ(syms["wbinvd"].end, 0x102370u);
    EXPECT_EQ(syms["pause"].begin, 0x1040e0u);
    // The embedded ones find each traced body's instruction.
    vmm::HostFacts host;
    for (const auto& t : suite::registry()) {
        if (t.trace.event != suite::TraceKey::Emulate) continue;
        std::string why;
        auto rips = lab::body_rips(t, host, why);
        EXPECT_EQ(rips.size(), t.trace.per_iter) << t.name << ": " << why;
    }
}
