// The profiler on this host: record exitbench's own VM while it makes a known
// number of PIO, MMIO and MSR exits, and check the counts.
#include <fstream>
#include <gtest/gtest.h>
#include <chrono>
#include <regex>
#include <thread>
#include <unistd.h>

#include "cli_runner.h"
#include "result/json.h"
#include "tests/temp_dir.h"
#include "tests/paths.h"

namespace {
uint64_t count_of(const std::string& report, const std::string& key) {
    std::smatch m;
    if (!std::regex_search(report, m, std::regex(key + R"(\s+(\d+))"))) return 0;
    return std::stoull(m[1]);
}
} // namespace

// Each test writes its files into a fresh directory of its own.
class Profile : public eb::test::TempDirTest {};

KVM_TEST_F(Profile, RecordsKnownExitCounts) {
    auto trace = temp_path("run.trace");
    // Three batches of 100 (one warm-up, two measured) per test, plus the one
    // read with which the guest checks the device before timing.
    auto r = run_cli({"run", "inl_from_qemu", "mmio_from_user", "rd_tsc_adjust_msr", "-n", "100", "-r", "2",
                      "--no-baseline", "--profile-out", trace});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("host side"), std::string::npos) << r.out;
    auto io = run_cli({"profile", "report", "-i", trace, "--event", "ioport", "--perf"});
    ASSERT_EQ(io.rc, 0) << io.err;
    EXPECT_EQ(count_of(io.out, R"(0x1234:PIN)"), 301u) << io.out;
    auto mmio = run_cli({"profile", "report", "-i", trace, "--event", "mmio", "--perf"});
    EXPECT_EQ(count_of(mmio.out, R"(0xd0000000:R)"), 301u) << mmio.out;
    auto msr = run_cli({"profile", "report", "-i", trace, "--event", "msr", "--perf"});
    EXPECT_EQ(count_of(msr.out, R"(0x3b:R)"), 300u) << msr.out;
    // Where kvm_exit never fires, the report says so instead of reporting zero exits.
    auto all = run_cli({"profile", "report", "-i", trace});
    if (all.out.find("kvm_exit never fired") != std::string::npos) {
        EXPECT_EQ(all.out.find("Total Samples:0"), std::string::npos);
    }
    auto json = temp_path("report.json");
    EXPECT_EQ(run_cli({"profile", "report", "-i", trace, "--json", json}).rc, 0);
    auto cmp = run_cli({"profile", "compare", trace, trace, "--event", "ioport"});
    EXPECT_EQ(cmp.rc, 0) << cmp.err;
}

KVM_TEST_F(Profile, LiveBatchModeShowsTheRunningGuest) {
    std::thread guest([] { run_cli({"run", "inl_from_qemu", "-n", "20000", "-r", "30", "--no-baseline"}); });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    auto r = run_cli({"profile", "live", "-a", "-1", "-d", "1s", "--csv", "--event", "ioport"});
    guest.join();
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out.rfind("time_s,event,count,rate_per_s,mean_us,p99_us,max_us\n", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("0x1234:PIN"), std::string::npos) << r.out;
}

// perf kvm stat record -- COMMAND: the command's own VM is recorded, from its
// first exit to its last, and the recording ends when it exits.
KVM_TEST_F(Profile, RecordsACommandUntilItExits) {
    auto trace = temp_path("cmd.trace");
    auto r = run_cli({"profile", "record", "-o", trace, "--", eb::test::exitbench_binary(), "run", "rd_tsc_adjust_msr", "-n", "100",
                      "-r", "2", "--sessions", "1", "--no-baseline", "--no-save", "--no-trace-verify"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("exit status 0"), std::string::npos) << r.out;
    auto msr = run_cli({"profile", "report", "-i", trace, "--event", "msr", "--key", "sample", "--perf"});
    ASSERT_EQ(msr.rc, 0) << msr.err;
    EXPECT_EQ(count_of(msr.out, R"(0x3b:R)"), 300u) << msr.out;
}

TEST_F(Profile, BadInputsGiveOneLineErrors) {
    auto junk = temp_path("junk.trace");
    { std::ofstream(junk) << "EBTRACE but not really"; }
    for (auto [args, rc, needle] : std::vector<std::tuple<std::vector<std::string>, int, std::string>>{
             {{"profile", "report", "-i", "/nonexistent.trace"}, 2, "/nonexistent.trace"},
             {{"profile", "report", "-i", junk}, 2, junk},
             {{"profile", "report", "-i", junk, "--event", "exits"}, 2, "exits"},
             {{"profile", "report", "-i", junk, "-k", "percent_sample"}, 2, "--key"},
             {{"profile", "record"}, 2, "-p PID"},
             // The PID is the user's argument, as for "no such process": bad input.
             {{"profile", "record", "-p", std::to_string(getpid()), "--duration", "1s"}, 2, "no KVM VM open"},
             {{"profile", "record", "-p", "999999999", "--duration", "1s"}, 2, "no such process"},
             {{"profile", "record", "-p", "1", "-a", "--duration", "1s"}, 2, "excludes"},
             {{"profile", "record", "-o", junk, "--", "no-such-command-xyz"}, 2, "command not found"},
             {{"profile", "record", "--duration", "1s", "--", "true"}, 2, "--duration"},
             {{"profile", "report", "-i", junk, "--vcpu", "x"}, 2, "from 0 to 4095"},
             {{"profile", "compare", junk}, 2, "traces"},
             {{"profile", "live"}, 2, "-p PID"},
             {{"profile", "live", "-a", "-d", "soon"}, 2, "--delay"}}) {
        auto r = run_cli(args);
        EXPECT_EQ(r.rc, rc) << needle << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    }
}

// --profile leaves the harness's ucall exits out, and records nothing where
// kvm_exit never fires.
KVM_TEST_F(Profile, AttributesOnlyTheTestsExits) {
    auto json = temp_path("run.json");
    auto r = run_cli({"run", "inl_from_kernel", "-n", "200", "-r", "2", "--sessions", "1", "--no-save", "--profile",
                      "--json", json});
    ASSERT_EQ(r.rc, 0) << r.err;
    std::ifstream f(json);
    auto rep = eb::result::from_json(nlohmann::json::parse(f));
    const auto& t = find(rep, "inl_from_kernel");
    ASSERT_TRUE(t.host_profile) << r.out;
    if (t.host_profile->note.find("nothing to attribute") != std::string::npos) {
        // kvm_pvm: nothing was traced, so no harness exits were seen either.
        EXPECT_EQ(t.host_profile->harness_exits, 0u);
        EXPECT_NE(r.out.find("nothing was recorded"), std::string::npos) << r.out;
        return;
    }
    // One ucall ends each batch: the warm-up one and the two measured.
    EXPECT_GE(t.host_profile->harness_exits, 3u) << r.out;
    EXPECT_NE(t.host_profile->reason, "");
    EXPECT_NE(r.out.find("harness exits (ucall port I/O)"), std::string::npos) << r.out;
}
