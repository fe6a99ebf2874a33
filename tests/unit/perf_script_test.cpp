// perf script text of a real perf kvm stat record (tests/fixtures/perf/) read
// as exitbench events and analyzed; hostile lines refused with one line.
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "profile/analyze.h"
#include "profile/perf_script.h"
#include "fixture.h"

using namespace eb::profile;

namespace {

std::string script_error_of(std::string_view text) {
    try {
        parse_perf_script(text);
    } catch (const PerfScriptError& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST(PerfScript, RealNsOutputBecomesPairedSvmExits) {
    auto s = parse_perf_script(perf_fixture("perf-script-ns-head.txt"));
    EXPECT_EQ(s.trace.header.isa, "svm");
    EXPECT_EQ(s.trace.events.size(), 300u);
    EXPECT_TRUE(s.skipped.empty());
    auto rep = analyze(s.trace.events, s.trace.header.isa, Options{});
    EXPECT_TRUE(rep.degraded.empty()) << rep.degraded;
    bool cpuid = false;
    for (const Row& r : rep.rows)
        if (r.name == "cpuid") {
            cpuid = true;
            EXPECT_EQ(r.key, 0x72u);
            EXPECT_GT(r.count, 90u);  // 105 cpuid exits in the head, a few cut at its edges
            EXPECT_GT(r.p50_ns, 1000.0);  // TCG: microseconds per exit
        }
    EXPECT_TRUE(cpuid);
    Options ports;
    ports.mode = Mode::Ioport;
    auto io = analyze(s.trace.events, s.trace.header.isa, ports);
    ASSERT_FALSE(io.rows.empty());
    EXPECT_EQ(io.rows[0].name, "0x5e0:POUT");
}

TEST(PerfScript, DefaultFormatWithCommAndMicrosecondsAlsoReads) {
    auto s = parse_perf_script(perf_fixture("perf-script-head.txt"));
    EXPECT_EQ(s.trace.header.isa, "svm");
    ASSERT_GE(s.trace.events.size(), 30u);
    EXPECT_EQ(s.trace.events[0].tid, 100u);
    EXPECT_EQ(s.trace.events[0].ts_ns % 1000, 0u);  // microseconds, scaled
}

TEST(PerfScript, HostileLinesGetOneLineErrors) {
    const std::pair<std::string, std::string> cases[] = {
        {"", "no kvm tracepoint"},
        {"hello world\n", "line 1: not a perf script line"},
        {std::string("100 [000] 1.0:\0 kvm:kvm_exit:", 30), "binary"},
        {"100 [000] 1.000000001: kvm:kvm_exit: vcpu 0 reason no_such_reason rip 0x1\n", "fields perf prints"},
        {"100 [000] 1.000000001: kvm:kvm_exit: vcpu x reason npf rip 0x1\n", "fields perf prints"},
        {"99999999999 [000] 1.000000001: kvm:kvm_entry: vcpu 0, rip 0x1\n", "TID [CPU] TIME"},
        {"100 [000] 99999999999999999999.1: kvm:kvm_entry: vcpu 0, rip 0x1\n", "TID [CPU] TIME"},
        {"100 [000] 1.000000001: kvm:kvm_msr: msr_poke 1b = 0x0\n", "fields perf prints"},
        {"100 [000] 1.000000001: kvm:kvm_pio: pio_write at zz size 4 count 1 val 0x1\n", "fields perf prints"},
        {"100 000 1.000000001: kvm:kvm_entry: vcpu 0, rip 0x1\n", "TID [CPU] TIME"},
        // Issue 24: 2^32 + 1 read as vCPU 1.
        {"100 [000] 1.000000001: kvm:kvm_entry: vcpu 4294967297, rip 0x1\n", "line 1: vcpu 4294967297 is out of range"},
    };
    for (const auto& [text, want] : cases) {
        auto e = script_error_of(text);
        EXPECT_NE(e.find(want), std::string::npos) << "input: " << text << "\nerror: " << e;
        EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    }
}
