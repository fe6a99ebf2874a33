// --export-FORMAT on run, compare and profile report against the real binary:
// every file complete even with stdout closed, paths checked before anything
// runs, promtool on real metrics, and the HTML opened in headless Chromium.
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli_runner.h"
#include "tests/paths.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {


// Every --export-FORMAT into `dir`, as base.FORMAT.
std::vector<std::string> export_args(const TempDir& dir, const std::string& base) {
    std::vector<std::string> a;
    for (const char* f : kExportFormats) a.insert(a.end(), {std::string("--export-") + f, dir.file(base + "." + f)});
    return a;
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

const std::vector<std::string> kQuickRun = {"run", "cpuid", "inl_from_qemu", "--sessions", "2", "-r", "3",
                                            "-n", "2000", "--no-save"};


// Each file of a complete export, checked by what its format promises.
void expect_complete(const TempDir& dir, const std::string& base, size_t rows) {
    auto j = json::parse(slurp(dir.file(base + ".json")));
    EXPECT_TRUE(j.contains("schema") || j.contains("rows")) << base;  // run and compare name a schema
    auto csv = slurp(dir.file(base + ".csv"));
    EXPECT_EQ(size_t(std::count(csv.begin(), csv.end(), '\n')), rows + 1) << csv;
    EXPECT_NE(slurp(dir.file(base + ".markdown")).find("|---|"), std::string::npos);
    EXPECT_NE(slurp(dir.file(base + ".text")).find("exitbench"), std::string::npos);
    auto html = slurp(dir.file(base + ".html"));
    EXPECT_TRUE(html.ends_with("</html>\n")) << base;
    auto prom = slurp(dir.file(base + ".openmetrics"));
    EXPECT_EQ(prom.rfind("# HELP exitbench_", 0), 0u) << prom;
    EXPECT_TRUE(prom.ends_with("\n"));
}

} // namespace

KVM_TEST(Export, RunAndCompareWriteEveryFormatWithStdoutClosed) {
    TempDir dir;
    CliOptions closed;
    closed.close_stdout = true;
    auto a = run_cli(concat(kQuickRun, export_args(dir, "a")), closed);
    ASSERT_EQ(a.rc, 0) << a.err;
    EXPECT_EQ(a.err, "");
    expect_complete(dir, "a", 3);  // cpuid, inl_from_qemu, baseline
    auto b = run_cli(concat(kQuickRun, {"--json", dir.file("b.json")}));
    ASSERT_EQ(b.rc, 0) << b.err;
    auto c = run_cli(concat({"compare", dir.file("a.json"), dir.file("b.json")}, export_args(dir, "c")), closed);
    ASSERT_EQ(c.rc, 0) << c.err;
    expect_complete(dir, "c", 6);  // 3 tests x 2 configurations
    EXPECT_EQ(json::parse(slurp(dir.file("c.json")))["schema"], "exitbench-compare");
}

TEST(Export, ProfileReportWritesEveryFormat) {
    TempDir dir;
    CliOptions closed;
    closed.close_stdout = true;
    auto r = run_cli(concat({"profile", "report", "-i", eb::test::fixtures_dir() + "/profile/nested-svm-cpuid-msr-io.trace"},
                            export_args(dir, "p")), closed);
    ASSERT_EQ(r.rc, 0) << r.err;
    auto rows = json::parse(slurp(dir.file("p.json")))["rows"].size();
    ASSERT_GT(rows, 0u);
    expect_complete(dir, "p", rows);
}

TEST(Export, BadPathsAndFormatsAreUsageErrorsBeforeAnythingRuns) {
    TempDir dir;
    auto missing = run_cli({"run", "cpuid", "--no-save", "--export-csv", dir.file("no/such/dir/r.csv")});
    EXPECT_EQ(missing.rc, 2) << missing.err;
    EXPECT_NE(missing.err.find("does not exist"), std::string::npos) << missing.err;
    EXPECT_EQ(missing.out, "");  // nothing ran
    auto twice = run_cli({"run", "cpuid", "--no-save", "--export-csv", dir.file("x"), "--export-text", dir.file("x")});
    EXPECT_EQ(twice.rc, 2);
    EXPECT_NE(twice.err.find("named by two exports"), std::string::npos) << twice.err;
    auto fmt = run_cli({"run", "cpuid", "--format", "markdwn"});
    EXPECT_EQ(fmt.rc, 2);
    EXPECT_NE(fmt.err.find("did you mean 'markdown'?"), std::string::npos) << fmt.err;
    auto flag = run_cli({"run", "cpuid", "--export-cvs", "x.csv"});
    EXPECT_EQ(flag.rc, 2);
    EXPECT_NE(flag.err.find("did you mean '--export-csv'?"), std::string::npos) << flag.err;
    auto kut = run_cli({"compare", "a.json", "b.json", "--format", "kut"});
    EXPECT_EQ(kut.rc, 2);
    EXPECT_NE(kut.err.find("--format kut does not apply to compare"), std::string::npos) << kut.err;
    auto alias = run_cli({"run", "cpuid", "--json", dir.file("a"), "--export-json", dir.file("b")});
    EXPECT_EQ(alias.rc, 2);
    EXPECT_NE(alias.err.find("old name"), std::string::npos) << alias.err;
    EXPECT_FALSE(fs::exists(dir.file("a")) || fs::exists(dir.file("b")));
}

// As root, renaming a temporary file over an export path replaced /dev/null
// itself with a regular file holding the results (issue 24).
KVM_TEST(Export, DevicesAreWrittenInPlaceNeverReplaced) {
    if (geteuid() != 0) GTEST_SKIP() << "only root could replace /dev/null; as another user the rename fails anyway";
    TempDir dir;
    auto node = dir.file("null");  // a null device of the test's own as well
    ASSERT_EQ(::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0) << std::strerror(errno);
    auto r = run_cli(concat(kQuickRun, {"--export-json", "/dev/null", "--export-csv", node}));
    EXPECT_EQ(r.rc, 0) << r.err;
    for (const std::string& p : {std::string("/dev/null"), node})
        EXPECT_TRUE(null_device_intact(p)) << p << " is no longer the null device";
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator{}), 1);
}

// The same without /dev/kvm: import perf-kvm --json, written by the same code.
TEST(Export, ImportJsonToDevNullKeepsTheDevice) {
    if (geteuid() != 0) GTEST_SKIP() << "only root could replace /dev/null; as another user the rename fails anyway";
    TempDir dir;
    auto node = dir.file("null");
    ASSERT_EQ(::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0) << std::strerror(errno);
    std::string report = eb::test::fixtures_dir() + "/perf/report-vmexit.txt";
    // The test's own node first: if it is replaced, the real /dev/null is not tried.
    for (const std::string& p : {node, std::string("/dev/null")}) {
        auto r = run_cli({"import", "perf-kvm", report, "--json", p});
        EXPECT_EQ(r.rc, 0) << r.err;
        ASSERT_TRUE(null_device_intact(p)) << p << " is no longer the null device";
    }
    auto d = run_cli({"import", "perf-kvm", report, "--json", dir.path});
    EXPECT_EQ(d.rc, 2) << d.err;
    EXPECT_EQ(d.err, "exitbench: error: cannot write " + dir.path + ": it is a directory\n");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator{}), 1);
}

KVM_TEST(Export, PromtoolAcceptsRealRunMetrics) {
    if (!have_tool("promtool")) GTEST_SKIP() << "promtool (Debian package prometheus) is not installed";
    TempDir dir;
    auto r = run_cli(concat(kQuickRun, {"--per-exit", "--export-openmetrics", dir.file("m.prom")}));
    ASSERT_EQ(r.rc, 0) << r.err;
    std::string cmd = "promtool check metrics < " + dir.file("m.prom") + " > " + dir.file("log") + " 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << slurp(dir.file("log"));
    EXPECT_EQ(slurp(dir.file("log")), "");
    auto prom = slurp(dir.file("m.prom"));
    for (const char* m : {"exitbench_exit_cycles{", "exitbench_run_timestamp_seconds{", "exitbench_test_status{",
                          "exitbench_per_exit_seconds_bucket{", "exitbench_last_run_success{",
                          "exitbench_last_run_timestamp_seconds{"})
        EXPECT_NE(prom.find(m), std::string::npos) << m << "\n" << prom;
}

// '-' is stdout for every --export-*: that format replaces the --format
// output, and no file named '-' appears; two of them, or a clashing
// --format, are one-line usage errors.
TEST(Export, DashIsStdout) {
    const std::string trace = eb::test::fixtures_dir() + "/profile/nested-svm-cpuid-msr-io.trace";
    TempDir dir;
    auto r = run_cli({"profile", "report", "-i", trace, "--export-json", "-", "--export-csv", dir.file("p.csv")});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto doc = json::parse(r.out);  // the whole of stdout is the JSON
    EXPECT_GT(doc["rows"].size(), 0u);
    EXPECT_GT(slurp(dir.file("p.csv")).size(), 0u);
    EXPECT_FALSE(fs::exists("-"));
    auto csv = run_cli({"profile", "report", "-i", trace, "--export-csv", "-"});
    ASSERT_EQ(csv.rc, 0) << csv.err;
    EXPECT_EQ(csv.out.rfind(slurp(dir.file("p.csv")), 0), 0u) << csv.out;
    for (const auto& bad : std::vector<std::vector<std::string>>{
             {"profile", "report", "-i", trace, "--export-json", "-", "--export-csv", "-"},
             {"profile", "report", "-i", trace, "--export-json", "-", "--format", "csv"},
             {"run", "cpuid", "--json", "-"},
             {"boot", "--kernel", "/boot/none", "--export-json", "-", "--", "run"}}) {
        auto e = run_cli(bad);
        EXPECT_EQ(e.rc, 2) << bad.back() << ": " << e.err;
        EXPECT_TRUE(one_line(e.err)) << e.err;
        EXPECT_NE(e.err.find("stdout"), std::string::npos) << e.err;
    }
    EXPECT_FALSE(fs::exists("-"));
}

// --quiet leaves stderr to warnings and errors: a save's note is gone, and
// so is the progress; stdout is the same.
KVM_TEST(Export, QuietKeepsOnlyWarningsAndErrors) {
    TempDir dir;
    const std::vector<std::string> run = {"run", "cpuid", "-n", "64", "-r", "2", "--format", "csv", "--db", dir.file("h.db")};
    auto loud = run_cli(run);
    ASSERT_EQ(loud.rc, 0) << loud.err;
    EXPECT_NE(loud.err.find("saved as run 1"), std::string::npos) << loud.err;
    auto quiet = run_cli(concat(run, {"--quiet"}));
    ASSERT_EQ(quiet.rc, 0) << quiet.err;
    EXPECT_EQ(quiet.err, "");
    EXPECT_EQ(quiet.out.substr(0, quiet.out.find('\n')), loud.out.substr(0, loud.out.find('\n')));  // the CSV header
    std::ofstream(dir.file("plain")) << "a file, not a folder\n";
    auto failed = run_cli({"-q", "run", "cpuid", "-n", "64", "--db", dir.file("plain/h.db")});
    EXPECT_EQ(failed.rc, 2);  // refused before it runs
    EXPECT_TRUE(one_line(failed.err)) << failed.err;
}
