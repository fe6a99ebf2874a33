// `report merge` against the real binary: a fleet made from one real run
// (copies under other host names, one of them slower), merged into every
// format; history runs merged by label; bad inputs refused in one line.
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "fleet.h"
#include "sys/file.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {


std::vector<std::string> merge_args(std::vector<std::string> inputs, const TempDir& dir) {
    inputs.insert(inputs.begin(), {"report", "merge"});
    for (const char* f : kExportFormats) inputs.insert(inputs.end(), {std::string("--export-") + f, dir.file(std::string("m.") + f)});
    return inputs;
}


} // namespace

KVM_TEST(Merge, AFleetInEveryFormatFlagsTheSlowHostWithStdoutClosed) {
    TempDir dir;
    auto files = fleet(dir, {"a", "b", "c", "slow", "newkernel"});
    CliOptions closed;
    closed.close_stdout = true;
    auto m = run_cli(merge_args(files, dir), closed);
    ASSERT_EQ(m.rc, 0) << m.err;
    EXPECT_EQ(m.err, "");
    auto j = json::parse(slurp(dir.file("m.json")));
    EXPECT_EQ(j["schema"], "exitbench-merge");
    ASSERT_EQ(j["groups"].size(), 2u);  // the new kernel is a group of its own
    const auto& g = j["groups"][0]["kernel"] == "9.9.9-test" ? j["groups"][1] : j["groups"][0];
    EXPECT_EQ(g["hosts"].size(), 4u);
    size_t tests = 0;
    for (const auto& grp : j["groups"]) tests += grp["tests"].size();
    for (const auto& t : g["tests"])
        for (const auto& h : t["hosts"]) EXPECT_EQ(h["outlier"], h["host"] == "slow") << t["test"] << " " << h["host"];
    auto csv = slurp(dir.file("m.csv"));
    EXPECT_EQ(size_t(std::count(csv.begin(), csv.end(), '\n')), tests + 1) << csv;
    EXPECT_NE(csv.find("slow "), std::string::npos) << csv;
    EXPECT_NE(slurp(dir.file("m.markdown")).find("|---|"), std::string::npos);
    EXPECT_NE(slurp(dir.file("m.text")).find("exitbench report merge"), std::string::npos);
    EXPECT_TRUE(slurp(dir.file("m.html")).ends_with("</html>\n"));
    auto prom = slurp(dir.file("m.openmetrics"));
    EXPECT_NE(prom.find("exitbench_merge_outlier{"), std::string::npos) << prom;
    if (!have_tool("promtool")) GTEST_SKIP() << "promtool (Debian package prometheus) is not installed";
    std::string cmd = "promtool check metrics < " + dir.file("m.openmetrics") + " > " + dir.file("log") + " 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << slurp(dir.file("log"));
}

KVM_TEST(Merge, HistoryRunsOfOneHostAreItsRunsNotMoreHosts) {
    TempDir dir;
    std::string db = dir.file("h.db");
    for (int i = 0; i < 2; ++i) {
        auto r = run_cli({"run", "cpuid", "-r", "3", "-n", "2000", "--db", db, "--label", "fleet"});
        ASSERT_EQ(r.rc, 0) << r.err;
    }
    auto m = run_cli({"report", "merge", "label:fleet", "--db", db, "--format", "json"});
    ASSERT_EQ(m.rc, 0) << m.err;
    auto j = json::parse(m.out);
    ASSERT_EQ(j["groups"].size(), 1u);
    EXPECT_EQ(j["groups"][0]["hosts"].size(), 1u);
    EXPECT_EQ(j["groups"][0]["tests"][0]["hosts"][0]["runs"], 2);
    ASSERT_EQ(j["warnings"].size(), 1u);
    EXPECT_NE(j["warnings"][0].get<std::string>().find("has 2 files in one group"), std::string::npos) << j["warnings"];
    auto one = run_cli({"report", "merge", "run:1", "run:2", "--db", db});
    EXPECT_EQ(one.rc, 0) << one.err;
    EXPECT_NE(one.out.find("1 host(s)"), std::string::npos) << one.out;
}

TEST(Merge, BadInputsAreOneLineUsageErrors) {
    TempDir dir;
    eb::sys::write_file(dir.file("junk.json"), "{\"schema\": [1, 2");
    struct Case {
        std::vector<std::string> args;
        const char* says;
    } cases[] = {
        {{"report", "merge", dir.file("missing.json")}, "cannot read"},
        {{"report", "merge", dir.file("junk.json")}, "junk.json"},
        {{"report", "merge", "label:nope", "--db", dir.file("none.db")}, "none.db"},
        {{"report", "merge", "x.json", "--format", "kut"}, "does not apply to report merge"},
        {{"report", "merge", "x.json", "--export-html", dir.file("no/dir/m.html")}, "does not exist"},
        {{"report", "merge"}, "inputs"},
        // Issue 24: a directory gave libstdc++'s "basic_filebuf::underflow".
        {{"report", "merge", dir.path}, "a directory, not a result file"},
    };
    for (const auto& c : cases) {
        auto r = run_cli(c.args);
        EXPECT_EQ(r.rc, 2) << c.args.back() << ": " << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(r.out, "");
    }
    EXPECT_FALSE(fs::exists(dir.file("none.db")));  // read-only: a wrong --db is not created
}
