// exitbench in CI pipelines, against the real binary: its KTAP read by prove
// (Perl's TAP::Harness) and by the kernel's kunit.py parser, kselftest's exit
// codes, and its JUnit XML validated by xmllint against tests/schema/junit.xsd
// and Jenkins xUnit's junit-10.xsd, and read by python3-junitparser.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
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

// xmllint against both schemas: "" when the file validates, else what it said.
std::string schema_errors(const std::string& xml, const TempDir& dir) {
    std::string out;
    for (const char* xsd : {"junit.xsd", "jenkins-xunit-junit-10.xsd"}) {
        auto [rc, said] = check("xmllint --noout --schema " + eb::test::source_dir() + "/tests/schema/" + xsd + " " + xml, dir);
        if (rc != 0 || said.find(" validates") == std::string::npos) out += std::string(xsd) + ": " + said;
    }
    return out;
}

// python3-junitparser's reading, one line per testcase (tests/schema/junit_read.py).
std::string junitparser_reads(const std::string& xml, const TempDir& dir) {
    return check("/usr/bin/python3 " + eb::test::source_dir() + "/tests/schema/junit_read.py " + xml, dir).second;
}

// A KTAP document as prove and, when linux-source gave it, kunit.py parse read it.
struct KtapReading {
    int prove_rc = -1, kunit_rc = -1;  // kunit_rc stays -1 without kunit.py
    std::string prove, kunit;
};
KtapReading read_ktap(const std::string& ktap, const TempDir& dir, const std::string& name) {
    KtapReading out;
    std::ofstream(dir.file(name)) << ktap;
    std::tie(out.prove_rc, out.prove) = check("prove -v --exec cat " + dir.file(name), dir);
    std::cout << "prove:\n" << out.prove;
    if (std::ifstream(eb::test::kunit_py()).good()) {
        std::tie(out.kunit_rc, out.kunit) = check("/usr/bin/python3 " + eb::test::kunit_py() + " parse " + dir.file(name), dir);
        std::cout << "kunit.py parse:\n" << out.kunit;
    }
    return out;
}

bool have_junitparser() { return std::system("/usr/bin/python3 -c 'import junitparser' 2>/dev/null") == 0; }

} // namespace

// What a kselftest runner would run: exitbench with --format ktap, its KTAP
// handed to prove as a test script's output.
KVM_TEST_HOST_ONLY(Ci, KtapOfRunAndCompareIsAcceptedByProve,
    "needs prove (Perl), python3 and xmllint, which the nested guest does not carry") {
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
    for (const char* f : {"a.xml", "c.xml"}) EXPECT_EQ(schema_errors(dir.file(f), dir), "") << slurp(dir.file(f));
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
    EXPECT_EQ(schema_errors(dir.file("c.xml"), dir), "");
    auto xml = slurp(dir.file("c.xml"));
    EXPECT_NE(xml.find("<testsuites name=\"exitbench compare\" tests=\"16\" failures=\"0\" errors=\"0\" time="),
              std::string::npos) << xml;

    // Gated, one file a side cannot be tested: kselftest's skip (4), every gated test a SKIP saying why.
    auto g = run_cli({"compare", "label:vmexit_cpuid.log", "label:vmexit-serial.log", "--db", db, "--format", "ktap",
                      "--fail-if-slower", "5", "--export-junit", dir.file("g.xml")});
    EXPECT_EQ(g.rc, 4) << g.err;
    EXPECT_NE(g.out.find("\nok 1 cpuid # SKIP not testable against --fail-if-slower\n"), std::string::npos) << g.out;
    EXPECT_NE(g.out.find("  ok 2 label:vmexit-serial.log # SKIP cpuid (label:vmexit-serial.log vs first) is not "
                         "testable: "), std::string::npos) << g.out;
    std::ofstream(dir.file("g.ktap")) << g.out;
    std::tie(rc, said) = check("prove -v --exec cat " + dir.file("g.ktap"), dir);
    EXPECT_EQ(rc, 0) << said;
    EXPECT_NE(said.find("not testable against --fail-if-slower"), std::string::npos) << said;
    EXPECT_EQ(schema_errors(dir.file("g.xml"), dir), "");
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

// On a backend with known limitations (kvm_pvm livelocks on a CPL0 VMCALL),
// the limitation is an expected failure everywhere: kselftest's XFAIL in
// KTAP, read as a pass by prove and by the kernel's kunit.py, a skip of type
// xfail in JUnit, and exit status 0 with the reason still printed.
KVM_TEST_HOST_ONLY(Ci, AKnownLimitationIsAnExpectedFailureForEveryConsumer,
    "needs prove (Perl), python3 and xmllint, which the nested guest does not carry") {
    if (!have_tool("prove")) GTEST_SKIP() << "prove (Debian package perl) is not installed";
    TempDir dir;
    auto r = run_cli({"run", "vmcall", "cpuid", "-r", "2", "-n", "500", "--sessions", "1", "--watchdog", "1",
                      "--no-save", "--format", "ktap", "--export-junit", dir.file("r.xml"), "--export-json",
                      dir.file("r.json")});
    if (slurp(dir.file("r.json")).find("\"backend\": \"pvm\"") == std::string::npos)
        GTEST_SKIP() << "vmcall has no known limitation on this backend";
    EXPECT_EQ(r.rc, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("\nok 3 vmcall # XFAIL kvm_pvm livelocks on a CPL0 VMCALL/VMMCALL"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("# vmcall (hung): kvm_pvm livelocks"), std::string::npos) << r.out;
    auto k = read_ktap(r.out, dir, "r.ktap");
    EXPECT_EQ(k.prove_rc, 0) << k.prove;
    EXPECT_NE(k.prove.find("Result: PASS"), std::string::npos) << k.prove;
    if (k.kunit_rc != -1) {
        EXPECT_EQ(k.kunit_rc, 0) << k.kunit;
        EXPECT_NE(k.kunit.find("[PASSED] vmcall"), std::string::npos) << k.kunit;
        EXPECT_NE(k.kunit.find("passed: 3"), std::string::npos) << k.kunit;
    }
    if (have_tool("xmllint")) {
        EXPECT_EQ(schema_errors(dir.file("r.xml"), dir), "");
    }
    if (have_junitparser()) {
        auto said = junitparser_reads(dir.file("r.xml"), dir);
        EXPECT_NE(said.find("exitbench run|vmcall|skipped:xfail|expected failure: kvm_pvm livelocks"), std::string::npos)
            << said;
        EXPECT_NE(said.find("exitbench run|cpuid|pass||figures=True"), std::string::npos) << said;
        std::cout << "junitparser:\n" << said;
    }
    // Without ktap, exitbench's own status: 0, the limitation said with the table.
    auto t = run_cli({"run", "vmcall", "-r", "2", "-n", "500", "--sessions", "1", "--watchdog", "1", "--no-save"});
    EXPECT_EQ(t.rc, 0) << t.err;
    EXPECT_NE(t.out.find("expected failures (1 known limitation of kvm_pvm"), std::string::npos) << t.out;
}

// --fail-if-slower over saved runs, B 30% slower: the regressed test is "not
// ok" in KTAP (prove and kunit.py fail it) and a <failure> in JUnit.
KVM_TEST_HOST_ONLY(Ci, AGatedRegressionFailsItsTestForEveryConsumer,
    "needs prove (Perl), python3 and xmllint, which the nested guest does not carry") {
    if (!have_tool("prove")) GTEST_SKIP() << "prove (Debian package perl) is not installed";
    TempDir dir;
    auto r = run_cli(cat({"run"}, cat(kQuick, {"--no-save", "--json", dir.file("a0.json")})));
    ASSERT_EQ(r.rc, 0) << r.err;
    // Three runs a side that differ a little, as real runs do, and B 30% slower.
    auto doc = nlohmann::json::parse(slurp(dir.file("a0.json")));
    std::vector<std::string> a, b;
    for (int k = 0; k < 6; ++k) {
        auto d = doc;
        double f = (k < 3 ? 1.0 : 1.3) * (1 + 0.003 * (k % 3));
        for (auto& t : d["results"])
            for (auto& s : t["sessions"]) {
                for (auto& x : s["samples_cycles_per_iter"]) x = x.get<double>() * f;
                s["median_cycles"] = s["median_cycles"].get<double>() * f;
            }
        std::string f_name = dir.file((k < 3 ? "a" : "b") + std::to_string(k) + ".json");
        std::ofstream(f_name) << d.dump();
        (k < 3 ? a : b).push_back(f_name);
    }
    auto c = run_cli({"compare", a[0], a[1], a[2], "--vs", b[0], b[1], b[2], "--fail-if-slower", "5", "--format",
                      "ktap", "--export-junit", dir.file("c.xml")});
    EXPECT_EQ(c.rc, 1) << c.err;
    EXPECT_NE(c.err.find("REGRESSION"), std::string::npos) << c.err;
    EXPECT_NE(c.out.find("(regression): cpuid ("), std::string::npos) << c.out;
    EXPECT_NE(c.out.find("\nnot ok 2 cpuid\n"), std::string::npos) << c.out;
    auto k = read_ktap(c.out, dir, "c.ktap");
    EXPECT_NE(k.prove_rc, 0) << k.prove;
    EXPECT_NE(k.prove.find("not ok 2 cpuid"), std::string::npos) << k.prove;
    if (k.kunit_rc != -1) {
        EXPECT_NE(k.kunit.find("[FAILED] cpuid"), std::string::npos) << k.kunit;
    }
    auto xml = slurp(dir.file("c.xml"));
    EXPECT_NE(xml.find("type=\"regression\""), std::string::npos) << xml;
    if (have_tool("xmllint")) {
        EXPECT_EQ(schema_errors(dir.file("c.xml"), dir), "");
    }
    if (have_junitparser()) {
        auto said = junitparser_reads(dir.file("c.xml"), dir);
        EXPECT_NE(said.find("|failure:regression|cpuid ("), std::string::npos) << said;
        std::cout << "junitparser:\n" << said;
    }
}

// The kselftest collection, run by the kernel's own runner (run_kselftest.sh
// and kselftest/runner.sh from linux-source) as it runs any collection: with
// /dev/kvm it passes; without, kselftest's skip. Installing twice lists it once.
TEST(Ci, KselftestCollectionRunsUnderTheKernelsRunner) {
    namespace fs = std::filesystem;
    const std::string src = eb::test::kselftest_dir();
    if (!fs::exists(src + "/run_kselftest.sh")) GTEST_SKIP() << "no kselftest runner: Debian's linux-source-6.1 is not installed";
    TempDir dir;
    const std::string tree = dir.file("kselftests");
    fs::create_directories(tree + "/kselftest");
    fs::copy_file(src + "/run_kselftest.sh", tree + "/run_kselftest.sh");
    for (const char* f : {"runner.sh", "prefix.pl", "module.sh"}) fs::copy_file(src + "/kselftest/" + f, tree + "/kselftest/" + f);
    std::ofstream(tree + "/kselftest-list.txt") << "other:test.sh";  // a tree's own list, kept (no final newline)
    auto inst = run_cli({"kselftest-install", tree, "--timeout", "600s", "--", "cpuid", "-n", "2000", "-r", "3", "--sessions", "1"});
    ASSERT_EQ(inst.rc, 0) << inst.err;
    EXPECT_NE(inst.out.find("run it with: " + tree + "/run_kselftest.sh -c exitbench"), std::string::npos) << inst.out;
    ASSERT_EQ(run_cli({"kselftest-install", tree, "--timeout", "600s", "--", "cpuid", "-n", "2000", "-r", "3", "--sessions", "1"}).rc, 0);
    EXPECT_EQ(slurp(tree + "/kselftest-list.txt"), "other:test.sh\nexitbench:run_exitbench.sh\n");
    EXPECT_EQ(slurp(tree + "/exitbench/settings"), "timeout=600\n");
    auto [rc, said] = check("sh " + tree + "/run_kselftest.sh -c exitbench", dir);
    std::cout << "run_kselftest.sh -c exitbench:\n" << said;
    EXPECT_EQ(rc, 0) << said;
    if (have_kvm())
        EXPECT_NE(said.find("ok 1 selftests: exitbench: run_exitbench.sh"), std::string::npos) << said;
    else
        EXPECT_NE(said.find("ok 1 selftests: exitbench: run_exitbench.sh # SKIP"), std::string::npos) << said;
    EXPECT_EQ(said.find("TIMEOUT"), std::string::npos) << said;
    // Bad input: one line, nothing written.
    for (const auto& bad : std::vector<std::vector<std::string>>{
             {"kselftest-install", dir.file("none")},
             {"kselftest-install", tree + "/kselftest-list.txt"},
             {"kselftest-install", tree, "--timeout", "0s"},
             {"kselftest-install", tree, "--", "cpuid", "--format", "json"},
             {"kselftest-install", tree, "--", "--no-such-option"}}) {
        auto e = run_cli(bad);
        EXPECT_EQ(e.rc, 2) << bad.back() << ": " << e.err;
        EXPECT_TRUE(one_line(e.err)) << e.err;
    }
}
