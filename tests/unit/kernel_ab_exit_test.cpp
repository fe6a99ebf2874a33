// compare --kernel-a/-b's end (cli::conclude_boots): the gate decides before
// any other exit, as compare_exit orders them, and marks the comparison.
#include <filesystem>
#include <gtest/gtest.h>

#include "cli/app.h"
#include "cli/kernel_ab.h"
#include "sample_report.h"
#include "tests/temp_dir.h"

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
