// perf.data read directly (ingest/perf_file.h): the real fixture and a large
// file made from it (tests/tools/perf_data_gen) give perf kvm stat report's
// table row for row; pipe mode and zstd-compressed records read as the plain
// file does; perf need not be installed; bad files are one line and exit 2.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <sstream>

#include "cli_runner.h"
#include "tests/paths.h"
#include "tests/temp_dir.h"

namespace {

std::string fixture_gz() { return eb::test::fixtures_dir() + "/perf/perf.data.gz"; }

int sh(const std::string& cmd) { return std::system(cmd.c_str()); }

// The table's rows and its total line, blanks squeezed: perf's columns are
// narrower than exitbench's --perf ones, the words and figures the same.
std::vector<std::string> table(const std::string& text) {
    std::vector<std::string> rows;
    std::istringstream in(text);
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
        std::istringstream w(line);
        std::string word, squeezed;
        while (w >> word) squeezed += (squeezed.empty() ? "" : " ") + word;
        if (squeezed.starts_with("VM-EXIT Samples")) inside = true;
        if (inside && !squeezed.empty()) rows.push_back(squeezed);
        if (squeezed.starts_with("Total Samples")) break;
    }
    return rows;
}

// The event records of a trace file (after its header), for comparing two.
std::string trace_events(const std::string& path) {
    std::string b = slurp(path);
    if (b.size() < 16) return "";
    uint32_t header;
    std::memcpy(&header, b.data() + 12, 4);
    return b.substr(header);
}

} // namespace

class PerfData : public eb::test::TempDirTest {
protected:
    std::string unpacked() {
        auto data = temp_path("perf.data");
        if (!std::filesystem::exists(data)) {
            EXPECT_EQ(sh("gzip -dc " + fixture_gz() + " > " + data), 0);
        }
        return data;
    }
    std::string generated(const std::string& name, uint64_t events, const std::string& flags = "") {
        auto out = temp_path(name);
        EXPECT_EQ(sh(fmt::format("{} {} {} --events {} {}", eb::test::perf_data_gen(), unpacked(), out, events,
                                 flags)), 0);
        return out;
    }
    // exitbench's table of `data` (import, then report --perf), and perf's.
    std::vector<std::string> ours(const std::string& data) {
        auto trace = data + ".trace";
        auto imp = run_cli({"profile", "import", data, "-o", trace});
        EXPECT_EQ(imp.rc, 0) << imp.err;
        auto rep = run_cli({"profile", "report", "-i", trace, "--perf"});
        EXPECT_EQ(rep.rc, 0) << rep.err;
        return table(rep.out);
    }
    // `profile report -i PERF.DATA --perf`: no trace file between.
    std::vector<std::string> direct(const std::string& data) {
        auto rep = run_cli({"profile", "report", "-i", data, "--perf"});
        EXPECT_EQ(rep.rc, 0) << rep.err;
        return table(rep.out);
    }
    std::vector<std::string> perfs(const std::string& data) {
        auto out = temp_path("perf-report.txt");
        EXPECT_EQ(sh("perf kvm -i " + data + " stat report --event=vmexit > " + out + " 2>&1"), 0);  // perf 6.1 prints it on stderr
        return table(slurp(out));
    }
};

TEST_F(PerfData, TheFixtureGivesPerfKvmStatReportsTableRowForRow) {
    if (!have_tool("perf")) GTEST_SKIP() << "perf is not installed (linux-perf): nothing to compare with";
    auto data = unpacked();
    auto mine = ours(data), theirs = perfs(data);
    ASSERT_EQ(theirs.size(), 7u) << "perf's header, 5 rows, total\n" << ::testing::PrintToString(theirs);
    EXPECT_EQ(mine, theirs);
    EXPECT_EQ(direct(data), theirs) << "profile report of the perf.data itself";
}

TEST_F(PerfData, AMillionEventFileGivesPerfKvmStatReportsTableRowForRow) {
    if (!have_tool("perf")) GTEST_SKIP() << "perf is not installed (linux-perf): nothing to compare with";
    auto data = generated("large.data", 1000000);
    auto mine = ours(data), theirs = perfs(data);
    ASSERT_GE(theirs.size(), 3u) << ::testing::PrintToString(theirs);
    EXPECT_EQ(mine, theirs);
    EXPECT_EQ(direct(data), theirs) << "profile report of the perf.data itself";
    EXPECT_NE(theirs.back().find("Total Samples:40"), std::string::npos) << theirs.back();  // 3353 exits a copy, 119.5 copies
}

// Each round's samples last first: every thread's events are out of time
// order in the file, so the direct report falls back to perf's round order,
// and still gives perf's table.
TEST_F(PerfData, ThreadsOutOfOrderInTheFileStillGivePerfsTable) {
    if (!have_tool("perf")) GTEST_SKIP() << "perf is not installed (linux-perf): nothing to compare with";
    auto data = generated("reversed.data", 100000, "--reverse");
    auto theirs = perfs(data);
    ASSERT_GE(theirs.size(), 3u) << ::testing::PrintToString(theirs);
    EXPECT_EQ(direct(data), theirs);
    EXPECT_EQ(ours(data), theirs);
}

// Pipe mode (perf record -o -) and compressed records (perf record -z) hold
// the same events as the plain file, and become the same trace.
TEST_F(PerfData, PipeModeAndZstdRecordsReadAsThePlainFileDoes) {
    uint64_t n = 50000;
    auto plain = generated("plain.data", n);
    auto r = run_cli({"profile", "import", plain, "-o", plain + ".t"});
    ASSERT_EQ(r.rc, 0) << r.err;
    std::string want = trace_events(plain + ".t");
    ASSERT_EQ(want.size(), n * 40);
    for (std::string flags : {"--pipe", "--zstd", "--pipe --zstd"}) {
        auto data = generated("g" + std::to_string(flags.size()) + flags.substr(2, 1) + ".data", n, flags);
        auto imp = run_cli({"profile", "import", data, "-o", data + ".t"});
        ASSERT_EQ(imp.rc, 0) << flags << ": " << imp.err;
        EXPECT_TRUE(trace_events(data + ".t") == want) << flags << ": not the plain file's events";
        if (have_tool("perf")) {  // perf reads what the generator wrote (perf kvm stat report reads no pipe)
            EXPECT_EQ(sh("perf script -i " + data + " > /dev/null 2>&1"), 0) << flags;
        }
    }
    EXPECT_LT(std::filesystem::file_size(temp_path("g6z.data")), std::filesystem::file_size(plain) / 4)
        << "--zstd compressed the samples";
}

TEST_F(PerfData, ImportNeedsNoPerf) {
    auto trace = temp_path("t.trace");
    CliOptions o;
    o.env = {"PATH=" + dir().string()};  // an empty directory: no perf, no anything
    auto r = run_cli({"profile", "import", unpacked(), "-o", trace}, o);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("8367 events, exit reasons svm"), std::string::npos) << r.out;
    auto rep = run_cli({"profile", "report", "-i", trace, "--perf"});
    EXPECT_NE(rep.out.find("Total Samples:3353"), std::string::npos) << rep.out;
}

// Each bad file: exit 2, one line naming the file and what is wrong, no trace.
TEST_F(PerfData, BadFilesAreOneLineAndExitTwo) {
    std::string good = slurp(unpacked());
    ASSERT_GT(good.size(), 100000u);
    auto variant = [&](const std::string& name, auto&& edit) {
        std::string b = good;
        edit(b);
        std::ofstream(temp_path(name), std::ios::binary) << b;
        return temp_path(name);
    };
    auto set_u64 = [](std::string& b, size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); };
    auto get_u64 = [](const std::string& b, size_t at) { uint64_t v; std::memcpy(&v, b.data() + at, 8); return v; };
    uint64_t data_at = get_u64(good, 40);
    struct Case { std::string file, says; };
    std::vector<Case> cases = {
        {variant("header.data", [](std::string& b) { b.resize(60); }), "cut short"},
        {variant("attrs.data", [](std::string& b) { b.resize(400); }), "cut short"},
        {variant("data.data", [&](std::string& b) { b.resize(data_at + 100037); }), "cut short"},
        {variant("magic.data", [](std::string& b) { b.replace(0, 8, "PERFILE3"); }), "not a perf.data file"},
        {variant("swapped.data", [](std::string& b) { std::reverse(b.begin(), b.begin() + 8); }), "big-endian"},
        {variant("feature.data", [](std::string& b) { b[72 + 5] |= 1; }), "feature bit 40"},
        // kvm_exit's attribute (the second) without PERF_SAMPLE_TIME
        {variant("notime.data", [&](std::string& b) { set_u64(b, 152 + 144 + 24, get_u64(b, 152 + 144 + 24) & ~4ull); }),
         "TIME"},
        {variant("zero.data", [&](std::string& b) { b[data_at + 6] = 0, b[data_at + 7] = 0; }), "a record of 0 bytes"},
    };
    for (const auto& c : cases) {
        auto out = temp_path("out.trace");
        auto r = run_cli({"profile", "import", c.file, "-o", out});
        EXPECT_EQ(r.rc, 2) << c.file << ": " << r.err;
        EXPECT_TRUE(one_line(r.err)) << r.err;
        EXPECT_NE(r.err.find(c.file), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << c.says << " in " << r.err;
        EXPECT_FALSE(std::filesystem::exists(out)) << c.file;
    }
    // The last is one perf itself refuses.
    if (have_tool("perf")) {
        EXPECT_NE(sh("perf script -i " + temp_path("zero.data") + " > /dev/null 2>&1"), 0) << "perf read it";
    }
}
