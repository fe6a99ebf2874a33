// `import kut` through the CLI: real vmexit.flat logs from tests/fixtures/kut/
// saved as imported runs, compared with exitbench's own, and bad files
// refused with one line and nothing saved.
#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "result/json.h"
#include "tests/temp_dir.h"
#include "tests/paths.h"

using namespace eb;

namespace {



} // namespace

class Import : public eb::test::TempDirTest {};

TEST_F(Import, SerialAndRunTestsLogsBecomeImportedRuns) {
    auto db = temp_path("h.db");
    auto r = run_cli({"import", "kut", kut_fixture("vmexit-serial.log"), kut_fixture("vmexit_cpuid.log"), "--db", db,
                      "--label", "kut", "--note", "QEMU 7.2"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("as run 1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("as run 2"), std::string::npos) << r.out;
    auto list = run_cli({"history", "list", "--db", db, "--label", "kut"});
    ASSERT_EQ(list.rc, 0) << list.err;
    EXPECT_NE(list.out.find("[kvm-unit-tests]"), std::string::npos) << list.out;
    auto ex = run_cli({"history", "export", "2", "--json", "--db", db});
    ASSERT_EQ(ex.rc, 0) << ex.err;
    auto rep = result::from_json(nlohmann::json::parse(ex.out));
    ASSERT_TRUE(rep.provenance.imported);
    EXPECT_EQ(rep.provenance.imported->source, "kvm-unit-tests");
    EXPECT_EQ(rep.provenance.imported->sha256.size(), 64u);
    ASSERT_EQ(rep.results.size(), 1u);
    EXPECT_EQ(rep.results[0].name, "cpuid");
    ASSERT_EQ(rep.results[0].sessions.size(), 1u);
    EXPECT_EQ(rep.results[0].sessions[0].samples.size(), 1u);
    EXPECT_GT(rep.results[0].sessions[0].samples[0], 0);
    auto show = run_cli({"history", "show", "1", "--db", db});
    EXPECT_NE(show.out.find("imported   from kvm-unit-tests"), std::string::npos) << show.out;
}

// One run given twice counts once: the same saved run, or the same content
// under another name, is refused with one line and exit 2 (no KVM needed).
TEST_F(Import, TheSameRunTwiceIsRefused) {
    auto db = temp_path("h.db");
    ASSERT_EQ(run_cli({"import", "kut", kut_fixture("vmexit-serial.log"), kut_fixture("vmexit_cpuid.log"), "--db", db}).rc, 0);
    auto ex = run_cli({"history", "export", "1", "--json", "--db", db});
    ASSERT_EQ(ex.rc, 0) << ex.err;
    auto file = temp_path("run1.json");
    std::ofstream(file) << ex.out;
    for (auto [args, needle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"compare", "run:1", "run:1", "--db", db}, "the same saved run"},
             {{"compare", "run:1", "run:2", "--vs", "run:1", "--db", db}, "the same saved run"},
             {{"compare", file, "run:1", "--db", db}, "same content, sha256"}}) {
        auto r = run_cli(args);
        EXPECT_EQ(r.rc, 2) << r.out << r.err;
        EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    // Two different imported logs, one a side: like against like, but one run a side.
    auto cmp = run_cli({"compare", "run:1", "run:2", "--db", db});
    EXPECT_EQ(cmp.rc, 0) << cmp.err;
    EXPECT_NE(cmp.out.find("not testable at the run level (1 vs 1 run)"), std::string::npos) << cmp.out;
}

KVM_TEST_F(Import, ComparesWithAnExitbenchRunAndSaysNotTestableOnOneSample) {
    auto db = temp_path("h.db");
    ASSERT_EQ(run_cli({"import", "kut", kut_fixture("vmexit-serial.log"), "--db", db}).rc, 0);
    auto run = run_cli({"run", "cpuid", "inl_from_qemu", "-n", "64", "-r", "3", "--sessions", "1", "--db", db});
    ASSERT_EQ(run.rc, 0) << run.err;
    auto cmp = run_cli({"compare", "run:1", "run:2", "--db", db});
    ASSERT_EQ(cmp.rc, 0) << cmp.err;
    EXPECT_NE(cmp.out.find("imported from kvm-unit-tests"), std::string::npos) << cmp.out;
    EXPECT_NE(cmp.out.find("\ncpuid\n"), std::string::npos) << cmp.out;
    EXPECT_NE(cmp.out.find("not testable"), std::string::npos) << cmp.out;
    EXPECT_EQ(cmp.out.find("hosts differ"), std::string::npos) << cmp.out;  // an unknown host is not a different one
    auto gate = run_cli({"compare", "run:1", "run:2", "--db", db, "--fail-if-slower", "5"});
    EXPECT_EQ(gate.rc, 4) << gate.out;  // no evidence: a gate must not pass
    EXPECT_NE(cmp.out.find("descriptive only"), std::string::npos) << cmp.out;
}

TEST_F(Import, BadFilesGetOneLineExitTwoAndSaveNothing) {
    auto db = temp_path("h.db");
    auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream(temp_path(name), std::ios::binary) << text;
        return temp_path(name);
    };
    std::string junk;
    for (int i = 0; i < 2048; ++i) junk += char(i * 37 % 256);
    for (const auto& bad : {write("empty.log", ""), write("words.log", "enabling apic\npaging enabled\n"),
                            write("junk.bin", junk), write("huge.log", "cpuid 123456789012345678901234567890\n"),
                            temp_path("missing.log"), dir().string()}) {
        // The good file first: a bad one after it must still save nothing.
        auto r = run_cli({"import", "kut", kut_fixture("vmexit-serial.log"), bad, "--db", db});
        EXPECT_EQ(r.rc, 2) << bad << ": " << r.err;
        EXPECT_TRUE(one_line(r.err)) << r.err;
        EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(db));
    EXPECT_EQ(run_cli({"import", "kut", "--db", db}).rc, 2);  // no file named
}
