// `import perf-kvm` and `profile compare` on perf kvm stat report texts made
// under the nested kvm_amd (tests/fixtures/perf/README.md), and bad files
// refused with one line, exit 2 and no --json written.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "tests/temp_dir.h"
#include "tests/paths.h"

namespace {

std::string perf(const std::string& name) { return eb::test::fixtures_dir() + "/perf/" + name; }

} // namespace

class ImportPerf : public eb::test::TempDirTest {};

TEST_F(ImportPerf, RealTablesAreReadAndWrittenAsJson) {
    auto out = temp_path("peer.json");
    auto r = run_cli({"import", "perf-kvm", perf("report-vmexit.txt"), perf("report-ioport.txt"),
                      perf("report-msr.txt"), "--json", out});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("vmexit (svm): 5 rows, 3353 samples"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("0x1234:PIN"), std::string::npos) << r.out;
    std::ifstream f(out);
    auto j = nlohmann::json::parse(f);
    ASSERT_EQ(j.size(), 3u);
    EXPECT_EQ(j[0]["mode"], "vmexit");
    EXPECT_EQ(j[0]["isa"], "svm");
    EXPECT_TRUE(j[0]["rows"][0]["p50_ns"].is_null());  // a perf table has no percentiles
    EXPECT_EQ(j[1]["source"]["sha256"].get<std::string>().size(), 64u);
}

TEST_F(ImportPerf, ComparesAgainstAnExitbenchTraceOnMeansOnly) {
    auto trace = eb::test::fixtures_dir() + "/profile/nested-svm-cpuid-msr-io.trace";
    auto r = run_cli({"profile", "compare", perf("report-vmexit.txt"), trace});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("cpuid"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("means only"), std::string::npos) << r.out;
    auto none = run_cli({"profile", "compare", perf("report-vmexit.txt"), trace, "--event", "msr"});
    EXPECT_EQ(none.rc, 2) << none.out;
    EXPECT_NE(none.err.find("no msr table"), std::string::npos) << none.err;
}

// profile compare renders through the exporters: JSON on stdout and in a file
// alike, and a format that does not apply is one line, exit 2.
TEST_F(ImportPerf, ProfileCompareExportsJson) {
    auto trace = eb::test::fixtures_dir() + "/profile/nested-svm-cpuid-msr-io.trace";
    auto file = temp_path("pc.json");
    auto r = run_cli({"profile", "compare", perf("report-vmexit.txt"), trace, "--format", "json", "--export-json", file});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["schema"], "exitbench-profile-compare");
    EXPECT_EQ(j["event"], "vmexit");
    ASSERT_FALSE(j["keys"].empty());
    bool means_only = false;
    for (const auto& k : j["keys"]) means_only |= k["summary_only"].get<bool>();
    EXPECT_TRUE(means_only) << "a perf table against a trace compares means only\n" << r.out;
    std::ifstream f(file);
    EXPECT_EQ(nlohmann::json::parse(f), j);
    auto html = run_cli({"profile", "compare", perf("report-vmexit.txt"), trace, "--format", "html"});
    EXPECT_EQ(html.rc, 2) << html.out;
    EXPECT_NE(html.err.find("does not apply to profile compare"), std::string::npos) << html.err;
}

TEST_F(ImportPerf, BadFilesGetOneLineExitTwo) {
    auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream(temp_path(name), std::ios::binary) << text;
        return temp_path(name);
    };
    std::string junk;
    for (int i = 0; i < 2048; ++i) junk += char(i * 37 % 256);
    auto json = temp_path("out.json");
    for (const auto& bad : {write("empty.txt", ""), write("words.txt", "no table here\n"), write("junk.bin", junk),
                            perf("perf.data.gz"), temp_path("missing.txt"), dir().string()}) {
        auto r = run_cli({"import", "perf-kvm", perf("report-vmexit.txt"), bad, "--json", json});
        EXPECT_EQ(r.rc, 2) << bad << ": " << r.err;
        EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
        EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(json));
}

// The real perf.data, read directly (perf_data_test.cpp: without perf).
TEST_F(ImportPerf, ProfileImportConvertsRealPerfDataToATrace) {
    auto data = temp_path("perf.data");
    ASSERT_EQ(std::system(("gzip -dc " + perf("perf.data.gz") + " > " + data).c_str()), 0);
    auto trace = temp_path("nested.trace");
    auto r = run_cli({"profile", "import", data, "-o", trace});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("8367 events, exit reasons svm"), std::string::npos) << r.out;
    auto rep = run_cli({"profile", "report", "-i", trace, "--perf"});
    ASSERT_EQ(rep.rc, 0) << rep.err;
    // perf's own report of the same perf.data: 800 cpuid exits, 1621 io.
    EXPECT_NE(rep.out.find("cpuid        800"), std::string::npos) << rep.out;
    EXPECT_NE(rep.out.find("io       1621"), std::string::npos) << rep.out;
    auto cmp = run_cli({"profile", "compare", perf("report-vmexit.txt"), trace});
    ASSERT_EQ(cmp.rc, 0) << cmp.err;
    EXPECT_NE(cmp.out.find("1621 -> 1621"), std::string::npos) << cmp.out;
}

// Issue 24: a perf.data named "-" passed the checks, then perf read stdin.
TEST_F(ImportPerf, ProfileImportReadsAFileNamedDash) {
    ASSERT_EQ(std::system(("gzip -dc " + perf("perf.data.gz") + " > " + temp_path("-")).c_str()), 0);
    CliOptions o;
    o.wrap = {"/bin/sh", "-c", "cd " + dir().string() + " && exec \"$0\" \"$@\""};
    o.timeout_s = 300;
    auto r = run_cli({"profile", "import", "-", "-o", temp_path("t.trace")}, o);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("8367 events, exit reasons svm"), std::string::npos) << r.out;
}

TEST_F(ImportPerf, ProfileImportRefusesWhatIsNotPerfData) {
    auto r = run_cli({"profile", "import", perf("report-vmexit.txt"), "-o", temp_path("x.trace")});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("not a perf.data file"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(temp_path("x.trace")));
}
