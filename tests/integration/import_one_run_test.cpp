// `import kut` of a run_tests.sh logs/ directory (issue 24): the logs of one
// invocation are one run, each log's sha256 kept in the result JSON and the
// history, a timed-out log a hung test of that run, and `compare` lines the
// run's tests up with another run's by name. No KVM needed but for the last.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "result/json.h"
#include "report/sha256.h"
#include "tests/paths.h"
#include "tests/temp_dir.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {


const char* const kLogs[] = {"vmexit_cpuid.log", "vmexit_inl_pmtimer.log", "vmexit_ipi.log"};


} // namespace

class ImportOneRun : public eb::test::TempDirTest {
protected:
    // logs/ as run_tests.sh leaves it: the three real vmexit logs, one its
    // timeout killed (vmcall) and another test's log, which is not vmexit.flat's.
    std::string make_logs() {
        auto logs = temp_path("logs");
        fs::create_directories(logs);
        for (const char* f : kLogs) fs::copy_file(kut_fixture(f), logs + "/" + f);
        std::ofstream(logs + "/vmexit_vmcall.log")
            << "timeout -k 1s --foreground 60s /usr/bin/qemu-system-x86_64 --no-reboot -nodefaults -device "
               "pc-testdev -machine accel=kvm -kernel x86/vmexit.flat -smp 1 -append vmcall # -initrd /tmp/tmp.x\n"
               "enabling apic\nqemu-system-x86_64: terminating on signal 15 from pid 4242 (timeout)\n";
        std::ofstream(logs + "/emulator.log") << "timeout -k 1s --foreground 90s /usr/bin/qemu-system-x86_64 "
                                                 "-nodefaults -kernel x86/emulator.flat -smp 1 # -initrd /tmp/x\n"
                                                 "PASS: emulator\n";
        return logs;
    }
    json exported(const std::string& db, int id) {
        auto ex = run_cli({"history", "export", std::to_string(id), "--json", "--db", db});
        EXPECT_EQ(ex.rc, 0) << ex.err;
        return json::parse(ex.out);
    }
};

TEST_F(ImportOneRun, ALogsDirectoryIsOneRunWithEveryLogsSha256) {
    auto logs = make_logs(), db = temp_path("h.db");
    auto r = run_cli({"import", "kut", logs, "--db", db});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("imported 4 logs of " + logs + " as run 1 (3 tests with a figure, 0 skipped, 1 hung"),
              std::string::npos) << r.out;
    EXPECT_NE(r.out.find(logs + ": 1 other log skipped"), std::string::npos) << r.out;
    auto j = exported(db, 1);
    const auto& im = j["provenance"]["imported"];
    ASSERT_EQ(im["logs"].size(), 4u) << im.dump();
    auto show = run_cli({"history", "show", "1", "--db", db});
    ASSERT_EQ(show.rc, 0) << show.err;
    for (const char* f : kLogs) {
        auto sha = eb::report::sha256_hex(slurp(kut_fixture(f)));
        auto it = std::find_if(im["logs"].begin(), im["logs"].end(), [&](const json& l) { return l["sha256"] == sha; });
        ASSERT_NE(it, im["logs"].end()) << f << " has no sha256 in " << im.dump();
        EXPECT_EQ((*it)["file"], logs + "/" + f);
        EXPECT_NE(show.out.find(sha), std::string::npos) << f << ": " << show.out;
    }
    auto rep = eb::result::from_json(j);
    EXPECT_EQ(find(rep, "vmcall").status, eb::suite::Status::Hung);
    EXPECT_NE(find(rep, "vmcall").detail.find("(timeout)"), std::string::npos);
    // The shell's logs/*.log makes the same run; --per-file makes one a log.
    fs::remove(logs + "/emulator.log");
    std::vector<std::string> args{"import", "kut", "--db", db};
    for (const char* f : kLogs) args.push_back(logs + "/" + f);
    args.push_back(logs + "/vmexit_vmcall.log");
    auto again = run_cli(args);
    ASSERT_EQ(again.rc, 0) << again.err;
    EXPECT_EQ(exported(db, 2)["provenance"]["imported"]["sha256"], im["sha256"]);
    args.push_back("--per-file");
    auto each = run_cli(args);
    ASSERT_EQ(each.rc, 0) << each.err;
    EXPECT_NE(each.out.find("as run 6 "), std::string::npos) << each.out;
    EXPECT_FALSE(exported(db, 6)["provenance"]["imported"].contains("logs"));
}

// compare lines the one run's tests up with another import's by name: the
// serial console log of an earlier run holds the same tests and more.
TEST_F(ImportOneRun, CompareLinesTheRunUpByTestName) {
    auto logs = make_logs(), db = temp_path("h.db");
    ASSERT_EQ(run_cli({"import", "kut", logs, "--db", db}).rc, 0);
    ASSERT_EQ(run_cli({"import", "kut", kut_fixture("vmexit-serial.log"), "--db", db}).rc, 0);
    auto cmp = run_cli({"compare", "run:1", "run:2", "--db", db});
    ASSERT_EQ(cmp.rc, 0) << cmp.err;
    for (const char* t : {"cpuid", "inl_from_pmtimer"}) {
        auto at = cmp.out.find(std::string("\n") + t + "\n");
        ASSERT_NE(at, std::string::npos) << t << ": " << cmp.out;
        auto section = cmp.out.substr(at, cmp.out.find("\n\n", at + 1) - at);
        EXPECT_NE(section.find("run:1 "), std::string::npos) << section;
        EXPECT_NE(section.find("run:2 "), std::string::npos) << section;
        EXPECT_NE(section.find("run:2 vs run:1: not testable at the run level (1 vs 1 run)"), std::string::npos)
            << section;
    }
    EXPECT_NE(cmp.out.find("vmexit_vmcall.log: no result in the run_tests.sh log"), std::string::npos) << cmp.out;
    auto self = run_cli({"compare", "run:1", "run:1", "--db", db});
    EXPECT_EQ(self.rc, 2) << self.out;
    EXPECT_NE(self.err.find("the same saved run"), std::string::npos) << self.err;
}

TEST_F(ImportOneRun, ATestInTwoLogsIsOneLineNamingBothAndSavesNothing) {
    auto logs = make_logs(), db = temp_path("h.db");
    fs::copy_file(kut_fixture("vmexit_cpuid.log"), logs + "/vmexit_cpuid_again.log");
    auto r = run_cli({"import", "kut", logs, "--db", db});
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_NE(r.err.find(logs + "/vmexit_cpuid.log and " + logs + "/vmexit_cpuid_again.log both hold test cpuid"),
              std::string::npos) << r.err;
    auto one = run_cli({"import", "kut", "--one-run", kut_fixture("vmexit-serial.log"), kut_fixture("vmexit_ipi.log"), "--db", db});
    EXPECT_EQ(one.rc, 2);
    EXPECT_NE(one.err.find("vmexit-serial.log and " + kut_fixture("vmexit_ipi.log") + " both hold test ipi"),
              std::string::npos) << one.err;
    auto both = run_cli({"import", "kut", "--one-run", "--per-file", logs, "--db", db});
    EXPECT_EQ(both.rc, 2);
    auto empty = temp_path("empty");
    fs::create_directories(empty);
    auto none = run_cli({"import", "kut", empty, "--db", db});
    EXPECT_EQ(none.rc, 2);
    EXPECT_NE(none.err.find(empty + ": no run_tests.sh log of vmexit.flat in it"), std::string::npos) << none.err;
    EXPECT_FALSE(fs::exists(db));
}

KVM_TEST_F(ImportOneRun, LinesUpWithAnExitbenchRunOfTheSameTests) {
    auto logs = make_logs(), db = temp_path("h.db");
    ASSERT_EQ(run_cli({"import", "kut", logs, "--db", db}).rc, 0);
    auto run = run_cli({"run", "cpuid", "inl_from_pmtimer", "-n", "64", "-r", "3", "--sessions", "1", "--db", db});
    ASSERT_EQ(run.rc, 0) << run.err;
    auto cmp = run_cli({"compare", "run:1", "run:2", "--db", db});
    ASSERT_EQ(cmp.rc, 0) << cmp.err;
    for (const char* t : {"\ncpuid\n", "\ninl_from_pmtimer\n"}) EXPECT_NE(cmp.out.find(t), std::string::npos) << cmp.out;
    EXPECT_NE(cmp.out.find("descriptive only"), std::string::npos) << cmp.out;
}
