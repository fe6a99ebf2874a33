// exitbench in CI pipelines, against the real binary: its KTAP read by prove
// (Perl's TAP::Harness), kselftest's exit codes, and its JUnit XML validated
// by xmllint against tests/schema/junit.xsd.
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "cli_runner.h"
#include "tests/paths.h"

namespace {

// A tool's exit status on `file`, and what it said.
std::pair<int, std::string> check(const std::string& command, const TempDir& dir) {
    int rc = std::system((command + " > " + dir.file("tool.log") + " 2>&1").c_str());
    return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, slurp(dir.file("tool.log"))};
}

const std::vector<std::string> kQuick = {"cpuid", "inl_from_qemu", "-r", "3", "-n", "2000", "--sessions", "1"};

std::vector<std::string> cat(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

} // namespace

// What a kselftest runner would run: exitbench with --format ktap, its KTAP
// handed to prove as a test script's output.
TEST(Ci, KtapOfRunAndCompareIsAcceptedByProve) {
    REQUIRE_KVM();
    if (!have_tool("prove")) GTEST_SKIP() << "prove (Debian package perl) is not installed";
    TempDir dir;
    auto a = run_cli(cat({"run"}, cat(kQuick, {"--no-save", "--format", "ktap", "--export-json", dir.file("a.json"),
                                                 "--export-junit", dir.file("a.xml")})));
    ASSERT_EQ(a.rc, 0) << a.err;
    EXPECT_EQ(a.out.rfind("KTAP version 1\n1..3\n", 0), 0u) << a.out;
    std::ofstream(dir.file("run.ktap")) << a.out;
    auto [rc, said] = check("prove -v --exec cat " + dir.file("run.ktap"), dir);
    EXPECT_EQ(rc, 0) << said;
    EXPECT_NE(said.find("Result: PASS"), std::string::npos) << said;
    std::cout << "prove on `exitbench run --format ktap`:\n" << said;

    auto b = run_cli(cat({"run"}, cat(kQuick, {"--no-save", "--json", dir.file("b.json")})));
    ASSERT_EQ(b.rc, 0) << b.err;
    auto c = run_cli({"compare", dir.file("a.json"), dir.file("b.json"), "--format", "ktap", "--export-junit",
                      dir.file("c.xml")});
    ASSERT_EQ(c.rc, 0) << c.err;
    EXPECT_NE(c.out.find("\n  KTAP version 1\n  # Subtest: cpuid\n  1..2\n"), std::string::npos) << c.out;
    std::ofstream(dir.file("compare.ktap")) << c.out;
    std::tie(rc, said) = check("prove --exec cat " + dir.file("compare.ktap"), dir);
    EXPECT_EQ(rc, 0) << said;

    if (!have_tool("xmllint")) GTEST_SKIP() << "xmllint (Debian package libxml2-utils) is not installed";
    for (const char* f : {"a.xml", "c.xml"}) {
        std::tie(rc, said) = check("xmllint --noout --schema " + eb::test::source_dir() + "/tests/schema/junit.xsd " + dir.file(f), dir);
        EXPECT_EQ(rc, 0) << said << slurp(dir.file(f));
        EXPECT_NE(said.find(" validates"), std::string::npos) << said;
    }
    EXPECT_NE(slurp(dir.file("a.xml")).find("<testcase name=\"cpuid\" classname=\"exitbench.run\""), std::string::npos);
}

// Without /dev/kvm: saved results (imported vmexit.flat logs) compared as
// KTAP, read by prove, and as JUnit, validated by xmllint.
TEST(Ci, KtapAndJunitOfSavedResults) {
    if (!have_tool("prove")) GTEST_SKIP() << "prove (Debian package perl) is not installed";
    TempDir dir;
    std::string db = dir.file("h.db");
    for (const char* f : {"vmexit_cpuid.log", "vmexit-serial.log"}) {
        auto r = run_cli({"import", "kut", eb::test::fixtures_dir() + "/kut/" + f, "--db", db, "--label", f});
        ASSERT_EQ(r.rc, 0) << r.err;
    }
    auto c = run_cli({"compare", "label:vmexit_cpuid.log", "label:vmexit-serial.log", "--db", db, "--format", "ktap",
                      "--export-junit", dir.file("c.xml"), "--export-ktap", dir.file("c.ktap")});
    ASSERT_EQ(c.rc, 0) << c.err;
    EXPECT_EQ(slurp(dir.file("c.ktap")), c.out);
    EXPECT_EQ(c.out.rfind("KTAP version 1\n1..8\n", 0), 0u) << c.out;
    EXPECT_NE(c.out.find("  ok 2 label:vmexit-serial.log # SKIP vmexit.flat printed 'ipi (skipped)' (line 16)\n"
                         "ok 8 ipi # SKIP every configuration skipped\n"), std::string::npos) << c.out;
    auto [rc, said] = check("prove -v --exec cat " + dir.file("c.ktap"), dir);
    EXPECT_EQ(rc, 0) << said;
    EXPECT_NE(said.find("Result: PASS"), std::string::npos) << said;
    std::cout << "prove on `exitbench compare --format ktap`:\n" << said;
    if (!have_tool("xmllint")) GTEST_SKIP() << "xmllint (Debian package libxml2-utils) is not installed";
    std::tie(rc, said) = check("xmllint --noout --schema " + eb::test::source_dir() + "/tests/schema/junit.xsd " + dir.file("c.xml"), dir);
    EXPECT_EQ(rc, 0) << said;
    std::cout << "xmllint: " << said;
    auto xml = slurp(dir.file("c.xml"));
    EXPECT_NE(xml.find("<testsuites name=\"exitbench compare\" tests=\"16\" failures=\"0\" errors=\"0\" skipped=\"8\""),
              std::string::npos) << xml;
}

// As kselftest's KVM tests: no usable KVM is a skip (4), with a plan of 0.
TEST(Ci, KtapWithoutKvmIsAKselftestSkip) {
    auto r = run_cli({"run", "cpuid", "--no-save", "--format", "ktap", "--device", "/nonexistent/kvm"});
    EXPECT_EQ(r.rc, 4) << r.err;
    EXPECT_EQ(r.out.rfind("KTAP version 1\n1..0 # SKIP ", 0), 0u) << r.out;
    EXPECT_NE(r.err.find("skipping"), std::string::npos) << r.err;
    // Without ktap the same host error keeps exitbench's own code.
    EXPECT_EQ(run_cli({"run", "cpuid", "--no-save", "--device", "/nonexistent/kvm"}).rc, 3);
}

// kselftest reads 2 as XFAIL and 3 as XPASS: usage errors must be a plain fail.
TEST(Ci, KtapUsageErrorsFailAsKselftestReadsThem) {
    EXPECT_EQ(run_cli({"run", "no_such_test", "--no-save", "--format", "ktap"}).rc, 1);
    EXPECT_EQ(run_cli({"run", "cpuid", "--no-save", "--format", "ktap", "--repeats", "0"}).rc, 1);
    EXPECT_EQ(run_cli({"run", "no_such_test", "--no-save"}).rc, 2);
}
