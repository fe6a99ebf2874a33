// The command line's exit statuses: errors mapped by their type, compare's
// and the kernel A/B's end (the gate first), and --format ktap's kselftest codes.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>

#include "cli/app.h"
#include "cli/compare_exit.h"
#include "cli/errors.h"
#include "cli/history.h"
#include "cli/kernel_ab.h"
#include "cli/kselftest.h"
#include "history/store.h"
#include "kvm/error.h"
#include "profile/trace_file.h"
#include "result/json.h"
#include "sample_report.h"
#include "suite/compare.h"
#include "sys/error.h"
#include "sys/io.h"
#include "tests/temp_dir.h"

// Exit codes by error type: every error is typed where it arises.
using namespace eb;

// Errors are typed where they arise; the command line maps the types, and
// anything untyped is a bug, not the user's input or the host.
TEST(ExitCodes, ErrorsMapByTheirType) {
    auto rc = [](auto thrown) { return cli::run_guarded([&]() -> int { throw thrown; }); };
    EXPECT_EQ(rc(cli::UsageError("x")), cli::kUsage);
    EXPECT_EQ(rc(InputError("x")), cli::kUsage);
    EXPECT_EQ(rc(HostError("x")), cli::kHost);
    EXPECT_EQ(rc(kvm::Error("KVM_RUN", EINTR)), cli::kHost);
    EXPECT_EQ(rc(history::StoreError("x")), cli::kHost);
    EXPECT_EQ(rc(std::bad_alloc()), cli::kHost);
    EXPECT_EQ(rc(std::runtime_error("an untyped error")), cli::kInternal);
    EXPECT_EQ(rc(std::logic_error("a broken precondition")), cli::kInternal);
    EXPECT_EQ(cli::run_guarded([] { return 4; }), 4);
}

// The readers say what is wrong with their input as InputError (exit 2), and
// a failing read of the host as HostError (exit 3).
TEST(ExitCodes, ReadersThrowTheInputError) {
    test::TempDir tmp;
    std::ofstream(tmp.path("bad.json")) << "{\"schema\": \"exitbench-run\", \"schema_version\": 999}";
    std::ofstream(tmp.path("bad.ebt")) << "not a trace";
    EXPECT_THROW(sys::read_regular(tmp.path("missing")), InputError);
    EXPECT_THROW(sys::read_regular(tmp.dir().string()), InputError);
    EXPECT_THROW(cli::load_result(tmp.path("bad.json"), ""), InputError);
    EXPECT_THROW(profile::read_trace(tmp.path("bad.ebt")), InputError);
    std::istringstream broken("{");
    EXPECT_THROW(result::parse_document(broken, "x.json"), InputError);
}

// compare's exit status once a comparison exists: the gate's regression
// stands over every later failure, and the table help prints is the order
// compare_exit() applies.
namespace {

using namespace eb::cli;

TEST(CompareExit, ARegressionStandsOverASaveAnExportAndASignal) {
    EXPECT_EQ(compare_exit({.gate = kTestFailed, .saved = false}), kTestFailed);
    EXPECT_EQ(compare_exit({.gate = kTestFailed, .written = false}), kTestFailed);
    EXPECT_EQ(compare_exit({.gate = kTestFailed, .interrupted = true}), kTestFailed);
    EXPECT_EQ(compare_exit({.gate = kTestFailed, .written = false, .saved = false, .interrupted = true}), kTestFailed);
}

TEST(CompareExit, WithoutARegressionTheFailuresComeInTheTablesOrder) {
    EXPECT_EQ(compare_exit({.gate = std::nullopt, .written = false, .saved = false, .interrupted = true}), kHost);
    EXPECT_EQ(compare_exit({.gate = kNotTestable, .saved = false, .interrupted = true}), kNotSaved);
    EXPECT_EQ(compare_exit({.gate = kOk, .interrupted = true}), kInterrupted);
    EXPECT_EQ(compare_exit({.gate = kNotTestable}), kNotTestable);
    EXPECT_EQ(compare_exit({.gate = kOk, .empty = true}), kOk);  // the gate read the (empty) family
    EXPECT_EQ(compare_exit({.gate = std::nullopt, .empty = true}), kTestFailed);
    EXPECT_EQ(compare_exit({}), kOk);
}

TEST(CompareExit, TheTableListsEveryCodeInThatOrder) {
    std::string t = kCompareExitTable;
    size_t at = 0;
    for (const char* row : {"\n  2 ", "\n  3 ", "\n  1    --fail-if-slower", "\n  3    an export", "\n  5 ", "\n  130",
                            "\n  4 ", "\n  1    no test", "\n  0 "}) {
        auto next = t.find(row, at);
        ASSERT_NE(next, std::string::npos) << row;
        at = next + 1;
    }
}

} // namespace

// compare --kernel-a/-b's end (cli::conclude_boots): the gate decides before
// any other exit, as compare_exit orders them, and marks the comparison.
using namespace eb;

namespace {

suite::RunReport boot(double factor, int id) {
    suite::RunReport r = sample_report();
    for (auto& t : r.results)
        for (auto& s : t.sessions)
            for (auto& x : s.samples) x *= factor;
    r.provenance.boot_id = "boot-" + std::to_string(id);  // each run its own boot: the boot is the unit
    return r;
}

// Three boots a side, B 10% slower.
report::Comparison slower_b() {
    std::vector<suite::RunReport> a{boot(1.0, 1), boot(1.004, 2), boot(0.997, 3)};
    std::vector<suite::RunReport> b{boot(1.1, 4), boot(1.103, 5), boot(1.098, 6)};
    return {suite::compare_saved({"A", "B"}, {a, b}), {}};
}

class KernelAbExit : public test::TempDirTest {
protected:
    // --json into a folder that goes away after the outputs were checked: its write fails.
    cli::Outputs failing_json() {
        std::filesystem::create_directory(temp_path("gone"));
        auto out = cli::plan_outputs("table", {}, temp_path("gone/ab.json"), report::Subject::Compare);
        std::filesystem::remove_all(temp_path("gone"));
        return out;
    }
};

TEST_F(KernelAbExit, TheGateStandsOverAnExportThatFailsAndAnInterrupt) {
    auto doc = slower_b();
    ASSERT_EQ(doc.report.unit, suite::Unit::Boot);
    auto out = failing_json();
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    int rc = cli::conclude_boots(doc, out, "", {}, 5.0, true, "");
    testing::internal::GetCapturedStdout();
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, cli::kTestFailed) << err;
    ASSERT_TRUE(doc.gate.has_value());  // every format marks the regression
    EXPECT_EQ(doc.gate->outcome, suite::GateOutcome::Regression);
    EXPECT_NE(err.find("REGRESSION"), std::string::npos) << err;
    EXPECT_NE(err.find("exit status 1 is the gate's"), std::string::npos) << err;
}

TEST_F(KernelAbExit, WithoutARegressionTheFailedExportDecides) {
    auto doc = slower_b();
    auto out = failing_json();
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    int rc = cli::conclude_boots(doc, out, "", {}, 50.0, false, "");  // 10% is within a 50% gate
    testing::internal::GetCapturedStdout();
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, cli::kHost) << err;
}

} // namespace

using namespace eb;

// --format ktap's exit status: kselftest's codes, and a skip only when what was asked for skipped.
TEST(Kselftest, ExitStatusIsKselftests) {
    EXPECT_EQ(cli::kselftest_status(0), 0);
    EXPECT_EQ(cli::kselftest_status(1), 1);
    EXPECT_EQ(cli::kselftest_status(2), 1);  // usage: kselftest would read XFAIL
    EXPECT_EQ(cli::kselftest_status(3), 1);  // host error: kselftest would read XPASS
    EXPECT_EQ(cli::kselftest_status(4), 4);
    EXPECT_EQ(cli::kselftest_status(130), 130);
    auto r = sample_report();  // baseline and cpuid ran
    EXPECT_EQ(cli::skip_if_all_skipped(0, r), 0);
    r.results.erase(r.results.begin() + 1);  // baseline, ipi skipped, vmcall hung
    r.results.pop_back();
    EXPECT_EQ(cli::skip_if_all_skipped(0, r), 4) << "the baseline's pass does not hide that ipi was skipped";
    EXPECT_EQ(cli::skip_if_all_skipped(1, r), 1);
    r.results.resize(1);
    EXPECT_EQ(cli::skip_if_all_skipped(0, r), 0) << "the baseline alone decides when it is all there is";
    report::Comparison c{suite::compare_saved({"a", "b"}, {{r}, {r}}), {}};
    EXPECT_EQ(cli::skip_if_all_skipped(0, c), 0);
}

TEST(Kselftest, NoKvmIsASkipWithAPlanOfZero) {
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    int rc = cli::skip_without_kvm([]() -> int { throw cli::NoKvm("cannot open /dev/kvm: No such file"); })();
    auto out = testing::internal::GetCapturedStdout();
    auto err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, 4);
    EXPECT_EQ(out, "KTAP version 1\n1..0 # SKIP cannot open /dev/kvm: No such file\n");
    EXPECT_NE(err.find("skipping"), std::string::npos);
    EXPECT_THROW(cli::skip_without_kvm([]() -> int { throw cli::HostError("disk full"); })(), cli::HostError);
}

