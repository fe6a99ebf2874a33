// Exit verification through kvm tracepoints: counting in the batch windows
// and judging against the expectation.
#include <gtest/gtest.h>

#include "lab/trace_verify.h"
#include "suite/registry.h"

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
