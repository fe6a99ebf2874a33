// Reading kvm-unit-tests' vmexit.flat output back: real logs made on this
// machine (tests/fixtures/kut/), and hostile files.
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "result/json.h"
#include "report/kut_import.h"
#include "report/sha256.h"
#include "fixture.h"

using namespace eb;
using report::KutFormatError;
using report::parse_kut;

namespace {

std::string kut_log(const std::string& name) { return read_fixture("kut/" + name); }

// The one-line reason parse_kut gives, or "" when it accepts the text.
std::string refusal(std::string_view text) {
    try {
        parse_kut(text);
        return "";
    } catch (const KutFormatError& e) {
        std::string why = e.what();
        EXPECT_EQ(why.find('\n'), std::string::npos) << why;
        return why;
    }
}

} // namespace

TEST(Sha256, MatchesTheStandardsTestVectors) {
    EXPECT_EQ(report::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(report::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(report::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(report::sha256_hex(std::string(1000000, 'a')),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(KutImport, ReadsRawLinesAndSkips) {
    auto k = parse_kut("cpuid 1519\ninl_from_qemu 12043\r\nipi (skipped)\n");
    ASSERT_EQ(k.tests.size(), 3u);
    EXPECT_EQ(k.tests[0].name, "cpuid");
    EXPECT_EQ(k.tests[0].cycles, 1519);
    EXPECT_EQ(k.tests[1].cycles, 12043);
    EXPECT_FALSE(k.tests[2].cycles);
    EXPECT_EQ(k.tests[2].line, 3u);
    EXPECT_EQ(k.other_lines, 0u);
}

TEST(KutImport, IgnoresOtherLinesAndTheIpiReceiversIndentedFigures) {
    auto k = parse_kut("enabling apic\nPM timer port is 608\nipi 5000\n  ipi ipi 900\n  eoi ipi 100\n"
                       "cpuid abc\ncpuid 1 2\nnot_a_test 123\n");
    ASSERT_EQ(k.tests.size(), 1u);
    EXPECT_EQ(k.tests[0].name, "ipi");
    EXPECT_EQ(k.other_lines, 7u);
}

TEST(KutImport, ResolvesAliasesToExitbenchNames) {
    auto k = parse_kut("inl_from_user 11000\n");
    ASSERT_EQ(k.tests.size(), 1u);
    EXPECT_EQ(k.tests[0].name, "inl_from_qemu");
}

TEST(KutImport, RefusesHostileFilesWithOneLine) {
    EXPECT_NE(refusal("").find("empty"), std::string::npos);
    EXPECT_NE(refusal("hello\nworld\n").find("no vmexit.flat result line"), std::string::npos);
    EXPECT_NE(refusal(std::string("cpuid 12\0\x01\x02", 10)).find("binary"), std::string::npos);
    std::string junk;
    for (int i = 0; i < 4096; ++i) junk += char((i * 7919) % 31 + 1);
    EXPECT_NE(refusal(junk).find("binary"), std::string::npos);
    EXPECT_NE(refusal("cpuid 99999999999999999999999\n").find("line 1"), std::string::npos);
    EXPECT_NE(refusal("x\ncpuid 2147483648\n").find("line 2"), std::string::npos);
    EXPECT_NE(refusal("cpuid -12\n").find("not a cycle count"), std::string::npos);  // %d wrapped around
    EXPECT_EQ(refusal("cpuid 2147483647\n"), "");
    // Issue 24: 0 cycles is no measurement; its log reached the statistics as -inf.
    EXPECT_EQ(refusal("cpuid 5\nvmcall 0\n"), "line 2: vmcall '0' is not a cycle count vmexit.flat prints (1 to 2147483647)");
    EXPECT_NE(refusal(std::string(report::kKutMaxBytes + 1, 'a')).find("too big"), std::string::npos);
}

// Issue 24: run_tests.sh writes a log for a test its timeout killed too;
// that log refused the whole import.
TEST(KutImport, ATimedOutRunTestsLogIsAHungTest) {
    std::string log =
        "timeout -k 1s --foreground 60s /usr/bin/qemu-system-x86_64 --no-reboot -nodefaults -device pc-testdev "
        "-machine accel=kvm -kernel x86/vmexit.flat -smp 1 -append vmcall # -initrd /tmp/tmp.x\n"
        "enabling apic\nsmp: waiting for 0 APs\npaging enabled\n"
        "qemu-system-x86_64: terminating on signal 15 from pid 4242 (timeout)\n";
    auto k = parse_kut(log);
    ASSERT_EQ(k.tests.size(), 1u);
    auto r = report::kut_report(k, {"logs/vmexit_vmcall.log", report::sha256_hex(log)});
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_EQ(r.results[0].name, "vmcall");
    EXPECT_EQ(r.results[0].status, suite::Status::Hung);
    EXPECT_NE(r.results[0].detail.find("terminating on signal 15 from pid 4242 (timeout)"), std::string::npos)
        << r.results[0].detail;
    EXPECT_TRUE(r.results[0].sessions.empty());
    auto back = result::from_json(result::to_json(r));
    EXPECT_EQ(back.results[0].status, suite::Status::Hung);
    // A log with results keeps them; one that is not kvm-unit-tests' is still refused.
    EXPECT_EQ(parse_kut(read_fixture("kut/vmexit_cpuid.log")).tests.size(), 1u);
    EXPECT_NE(refusal("qemu-system-x86_64: terminating on signal 15\n").find("no vmexit.flat result line"),
              std::string::npos);
}

TEST(KutImport, ReportHasOneSamplePerTestAndItsSource) {
    auto k = parse_kut("cpuid 1519\nipi (skipped)\ncpuid 1530\n");
    auto r = report::kut_report(k, {"serial.log", report::sha256_hex("x")});
    ASSERT_EQ(r.results.size(), 2u);
    EXPECT_EQ(r.results[0].status, suite::Status::Unverified);
    ASSERT_EQ(r.results[0].sessions.size(), 1u);  // the same VM: repeats of one session, not two
    EXPECT_EQ(r.results[0].sessions[0].samples, (std::vector<double>{1519, 1530}));
    EXPECT_EQ(r.results[1].status, suite::Status::Skipped);
    EXPECT_TRUE(r.results[1].sessions.empty());
    ASSERT_TRUE(r.provenance.imported);
    EXPECT_EQ(r.provenance.imported->source, "kvm-unit-tests");
    // It survives the result JSON, with its unknown TSC frequency.
    auto back = result::from_json(result::to_json(r));
    ASSERT_TRUE(back.provenance.imported);
    EXPECT_EQ(back.provenance.imported->file, "serial.log");
    EXPECT_EQ(back.host.tsc_mhz, 0);
    EXPECT_TRUE(result::to_json(r)["results"][0]["summary"]["ns"].is_null());
}

TEST(KutImport, AMeasuredRunMustStillHaveATscFrequency) {
    auto r = report::kut_report(parse_kut("cpuid 1\n"), {"f", "0"});
    auto j = result::to_json(r);
    j["provenance"]["imported"] = nullptr;
    EXPECT_THROW(result::from_json(j), std::runtime_error);
}

// vmexit.flat under QEMU with KVM on this machine: -serial stdio, CRLF line ends.
TEST(KutImport, ReadsARealSerialConsoleLog) {
    auto text = kut_log("vmexit-serial.log");
    ASSERT_NE(text.find("\r\n"), std::string::npos);  // as QEMU's serial port wrote it
    auto k = parse_kut(text);
    std::vector<std::string> names;
    for (const auto& t : k.tests) names.push_back(t.name);
    EXPECT_EQ(names, (std::vector<std::string>{"cpuid", "mov_from_cr8", "mov_to_cr8", "inl_from_pmtimer",
                                               "inl_from_qemu", "inl_from_kernel", "outl_to_kernel", "ipi"}));
    EXPECT_EQ(k.tests[0].cycles, 37234);
    EXPECT_FALSE(k.tests.back().cycles);  // one vCPU: "ipi (skipped)"
    EXPECT_EQ(k.other_lines, 8u);         // the banner lines and "PM timer port is 608"
    // The bare lines of the same run read the same.
    auto bare = parse_kut(kut_log("vmexit-lines.txt"));
    ASSERT_EQ(bare.tests.size(), k.tests.size());
    for (size_t i = 0; i < k.tests.size(); ++i) {
        EXPECT_EQ(bare.tests[i].name, k.tests[i].name);
        EXPECT_EQ(bare.tests[i].cycles, k.tests[i].cycles);
    }
}

// kvm-unit-tests' run_tests.sh logs (logs/*.log): its command line, QEMU's
// warnings, the guest's output; vmexit_ipi also has the receiver's indented line.
TEST(KutImport, ReadsRealRunTestsLogs) {
    auto cpuid = parse_kut(kut_log("vmexit_cpuid.log"));
    ASSERT_EQ(cpuid.tests.size(), 1u);
    EXPECT_EQ(cpuid.tests[0].name, "cpuid");
    EXPECT_EQ(cpuid.tests[0].cycles, 38002);
    auto ipi = parse_kut(kut_log("vmexit_ipi.log"));
    ASSERT_EQ(ipi.tests.size(), 1u);  // "  ipi ipi 326641" is the receiver's figure, not a result
    EXPECT_EQ(ipi.tests[0].name, "ipi");
    EXPECT_EQ(ipi.tests[0].cycles, 418475);
    auto pm = parse_kut(kut_log("vmexit_inl_pmtimer.log"));
    ASSERT_EQ(pm.tests.size(), 1u);
    EXPECT_EQ(pm.tests[0].name, "inl_from_pmtimer");
    EXPECT_EQ(pm.tests[0].line, 11u);
}

namespace {

// run_tests.sh's log of a test its timeout killed (vmcall, on a host where it livelocks).
const std::string kTimedOut =
    "timeout -k 1s --foreground 60s /usr/bin/qemu-system-x86_64 --no-reboot -nodefaults -device pc-testdev "
    "-machine accel=kvm -kernel x86/vmexit.flat -smp 1 -append vmcall # -initrd /tmp/tmp.x\n"
    "enabling apic\nqemu-system-x86_64: terminating on signal 15 from pid 4242 (timeout)\n";

report::KutLog log_of(const std::string& file, const std::string& text) {
    return {{file, report::sha256_hex(text)}, parse_kut(text)};
}

} // namespace

// Issue 24: the logs of one run_tests.sh invocation are one run, so compare
// lines its tests up with another run's; each log's sha256 is kept.
TEST(KutImport, LogsOfOneInvocationAreOneRunWithEachLogsSha256) {
    std::vector<report::KutLog> logs;
    for (const char* f : {"vmexit_cpuid.log", "vmexit_inl_pmtimer.log", "vmexit_ipi.log"})
        logs.push_back(log_of(std::string("logs/") + f, kut_log(f)));
    logs.push_back(log_of("logs/vmexit_vmcall.log", kTimedOut));
    auto r = report::kut_run_report(logs, "logs");
    std::vector<std::string> names;
    for (const auto& t : r.results) names.push_back(t.name);
    EXPECT_EQ(names, (std::vector<std::string>{"cpuid", "inl_from_pmtimer", "ipi", "vmcall"}));
    EXPECT_EQ(r.results[0].sessions[0].samples, std::vector<double>{38002});
    EXPECT_EQ(r.results[3].status, suite::Status::Hung);
    EXPECT_EQ(r.results[3].detail.rfind("logs/vmexit_vmcall.log: no result in the run_tests.sh log", 0), 0u)
        << r.results[3].detail;
    ASSERT_TRUE(r.provenance.imported);
    const auto& im = *r.provenance.imported;
    EXPECT_EQ(im.file, "logs");
    ASSERT_EQ(im.logs.size(), 4u);
    EXPECT_EQ(im.logs[1].file, "logs/vmexit_inl_pmtimer.log");
    EXPECT_EQ(im.logs[1].sha256, report::sha256_hex(kut_log("vmexit_inl_pmtimer.log")));
    EXPECT_EQ(im.logs[3].tests, std::vector<std::string>{"vmcall"});
    // The run's digest is that of the logs' sha256sum lines, by base name.
    std::string manifest;
    for (const auto& l : {im.logs[0], im.logs[1], im.logs[2], im.logs[3]})
        manifest += l.sha256 + "  " + l.file.substr(5) + "\n";
    EXPECT_EQ(im.sha256, report::sha256_hex(manifest));
    // The result JSON carries every log, and reads back.
    auto j = result::to_json(r);
    ASSERT_EQ(j["provenance"]["imported"]["logs"].size(), 4u);
    EXPECT_EQ(j["provenance"]["imported"]["logs"][2]["sha256"], report::sha256_hex(kut_log("vmexit_ipi.log")));
    auto back = result::from_json(j);
    ASSERT_EQ(back.provenance.imported->logs.size(), 4u);
    EXPECT_EQ(back.provenance.imported->logs[3].sha256, report::sha256_hex(kTimedOut));
    EXPECT_EQ(back.results[3].status, suite::Status::Hung);
}

TEST(KutImport, ATestInTwoLogsOfOneRunIsRefusedNamingBoth) {
    auto cpuid = kut_log("vmexit_cpuid.log");
    try {
        report::kut_run_report({log_of("logs/a.log", cpuid), log_of("logs/b.log", kTimedOut),
                                log_of("logs/c.log", "cpuid 5\n")}, "logs");
        FAIL() << "a test held by two logs was accepted";
    } catch (const KutFormatError& e) {
        std::string why = e.what();
        EXPECT_EQ(why.rfind("logs/a.log and logs/c.log both hold test cpuid", 0), 0u) << why;
        EXPECT_EQ(why.find('\n'), std::string::npos);
    }
}

// One file's run has no "logs": its JSON is as before, and files written
// before "logs" existed read as they did; a malformed "logs" is refused.
TEST(KutImport, OneFilesRunHasNoLogsAndOldFilesStillRead) {
    auto r = report::kut_report(parse_kut("cpuid 1519\n"), {"serial.log", report::sha256_hex("x")});
    auto j = result::to_json(r);
    EXPECT_FALSE(j["provenance"]["imported"].contains("logs"));
    EXPECT_TRUE(result::from_json(j).provenance.imported->logs.empty());
    j["provenance"]["imported"]["logs"] = "logs/a.log";
    EXPECT_THROW(result::from_json(j), std::runtime_error);
    j["provenance"]["imported"]["logs"] = nlohmann::json::array({{{"file", "a.log"}, {"sha256", "00"}}});
    EXPECT_THROW(result::from_json(j), std::runtime_error);  // no "tests"
}

TEST(KutImport, TellsRunTestsLogsOfVmexitFromOtherTestsLogs) {
    EXPECT_TRUE(report::is_run_tests_log(kut_log("vmexit_cpuid.log")));
    EXPECT_TRUE(report::is_run_tests_log(kTimedOut));
    EXPECT_FALSE(report::is_run_tests_log(kut_log("vmexit-serial.log")));
    EXPECT_FALSE(report::is_run_tests_log("cpuid 5\n"));
    EXPECT_EQ(report::other_kut_kernel(kut_log("vmexit_cpuid.log")), "");
    EXPECT_EQ(report::other_kut_kernel("timeout 90s /usr/bin/qemu-system-x86_64 -nodefaults -kernel "
                                       "x86/emulator.flat -smp 1 # -initrd /tmp/x\nPASS\n"),
              "x86/emulator.flat");
    EXPECT_EQ(report::other_kut_kernel("cpuid 5\n"), "");
}
