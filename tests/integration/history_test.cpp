// The history store through the CLI: run saves, history lists and exports,
// compare reads labels and run ids, bad stores get one line, and parallel
// writers all succeed.
#include <fstream>
#include <future>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "result/json.h"
#include "tests/temp_dir.h"

using namespace eb;

namespace {

// One short session: the store, not the statistics, is under test.
CliResult quick_run(const std::string& db, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"run", "cpuid", "-n", "64", "-r", "3", "--sessions", "1", "--db", db};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
}

size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

} // namespace

class History : public eb::test::TempDirTest {};

KVM_TEST_F(History, RunSavesAndHistoryListsShowsAndExports) {
    auto db = temp_path("h.db");
    auto r = quick_run(db, {"--label", "before-v2", "--note", "stock kernel"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.err.find("saved as run 1 in " + db), std::string::npos) << r.err;

    auto list = run_cli({"history", "list", "--db", db});
    ASSERT_EQ(list.rc, 0) << list.err;
    EXPECT_NE(list.out.find("before-v2"), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("baseline cpuid"), std::string::npos) << list.out;

    auto show = run_cli({"history", "show", "1", "--db", db});
    ASSERT_EQ(show.rc, 0) << show.err;
    EXPECT_NE(show.out.find("stock kernel"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("--label before-v2"), std::string::npos) << show.out;  // the argv

    auto ex = run_cli({"history", "export", "1", "--json", "--db", db});
    ASSERT_EQ(ex.rc, 0) << ex.err;
    auto rep = result::from_json(nlohmann::json::parse(ex.out));
    EXPECT_EQ(rep.schema_version, result::kSchemaVersion);
    EXPECT_FALSE(rep.provenance.timestamp_utc.empty());
    EXPECT_FALSE(rep.provenance.hostname.empty());
    EXPECT_EQ(rep.provenance.boot_id.size(), 36u);

    auto trend = run_cli({"history", "trend", "cpuid", "--db", db});
    ASSERT_EQ(trend.rc, 0) << trend.err;
    EXPECT_NE(trend.out.find("run    1"), std::string::npos) << trend.out;
}

KVM_TEST_F(History, NoSaveLeavesNoDatabase) {
    auto r = run_cli({"run", "cpuid", "-n", "64", "-r", "2", "--sessions", "1", "--no-save"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.err.find("saved as run"), std::string::npos) << r.err;
    auto bad = run_cli({"run", "cpuid", "--no-save", "--label", "x"});
    EXPECT_EQ(bad.rc, 2);
}

KVM_TEST_F(History, CompareLabelsRunsAndAgainstLast) {
    auto db = temp_path("h.db");
    for (const char* label : {"A", "A", "B", "B"}) ASSERT_EQ(quick_run(db, {"--label", label}).rc, 0);
    auto byl = run_cli({"compare", "label:A", "label:B", "--db", db});
    ASSERT_EQ(byl.rc, 0) << byl.err;
    EXPECT_NE(byl.out.find("label:A (2 runs)"), std::string::npos) << byl.out;
    EXPECT_NE(byl.out.find("saved results: 2 vs 2"), std::string::npos) << byl.out;

    auto byid = run_cli({"compare", "run:1", "run:4", "--db", db});
    ASSERT_EQ(byid.rc, 0) << byid.err;
    auto last = run_cli({"compare", "--against", "last", "--db", db});
    ASSERT_EQ(last.rc, 0) << last.err;
    EXPECT_NE(last.out.find("run:4 vs run:3"), std::string::npos) << last.out;  // newest vs the one before

    // An exported run reads back as a file side.
    auto ex = run_cli({"history", "export", "2", "--json", "--db", db});
    auto file = temp_path("two.json");
    std::ofstream(file) << ex.out;
    auto mixed = run_cli({"compare", file, "run:3", "--db", db});
    EXPECT_EQ(mixed.rc, 0) << mixed.err;
}

KVM_TEST_F(History, UnknownLabelsAndIdsSuggest) {
    auto db = temp_path("h.db");
    ASSERT_EQ(quick_run(db, {"--label", "before"}).rc, 0);
    auto lab = run_cli({"compare", "label:befor", "run:1", "--db", db});
    EXPECT_EQ(lab.rc, 2);
    EXPECT_NE(lab.err.find("did you mean label:before?"), std::string::npos) << lab.err;
    EXPECT_EQ(lines(lab.err), 1u) << lab.err;
    auto id = run_cli({"history", "show", "2", "--db", db});
    EXPECT_EQ(id.rc, 2);
    EXPECT_NE(id.err.find("no run 2"), std::string::npos) << id.err;
    EXPECT_NE(id.err.find("did you mean 1?"), std::string::npos) << id.err;
    EXPECT_EQ(run_cli({"history", "show", "x1", "--db", db}).rc, 2);
    auto list = run_cli({"history", "list", "--label", "befre", "--db", db});
    EXPECT_EQ(list.rc, 2);
    EXPECT_NE(list.err.find("did you mean 'before'?"), std::string::npos) << list.err;
    EXPECT_EQ(run_cli({"history", "list", "--since", "yesterday", "--db", db}).rc, 2);
    EXPECT_EQ(run_cli({"compare", "--against", "first", "--db", db}).rc, 2);
    // Only one run: nothing earlier to compare against.
    EXPECT_EQ(run_cli({"compare", "--against", "last", "--db", db}).rc, 2);
}

KVM_TEST_F(History, RmAsksOnATerminalAndNeedsYesOtherwise) {
    auto db = temp_path("h.db");
    ASSERT_EQ(quick_run(db).rc, 0);
    auto no = run_cli({"history", "rm", "1", "--db", db});
    EXPECT_EQ(no.rc, 2);
    EXPECT_NE(no.err.find("--yes"), std::string::npos) << no.err;
    auto yes = run_cli({"history", "rm", "1", "--yes", "--db", db});
    ASSERT_EQ(yes.rc, 0) << yes.err;
    EXPECT_EQ(run_cli({"history", "show", "1", "--db", db}).rc, 2);
}

KVM_TEST_F(History, BadStoresGetOneLine) {
    auto corrupt = temp_path("corrupt.db");
    std::ofstream(corrupt) << std::string(8192, '\x5a');
    auto foreign = temp_path("foreign.json");
    std::ofstream(foreign) << "{}";
    for (const auto& db : {corrupt, foreign, temp_path("absent.db")}) {
        auto r = run_cli({"history", "list", "--db", db});
        EXPECT_EQ(r.rc, 2) << db;
        EXPECT_EQ(lines(r.err), 1u) << r.err;
        EXPECT_NE(r.err.find(db), std::string::npos) << r.err;
    }
    // A store a run could not save to is refused before the run, in one line.
    for (const auto& db : {corrupt, std::string("/proc/exitbench/history.db")}) {
        auto r = quick_run(db);
        EXPECT_EQ(r.rc, 2) << r.err;
        EXPECT_EQ(r.out, "");
        EXPECT_EQ(lines(r.err), 1u) << r.err;
        EXPECT_NE(r.err.find(db), std::string::npos) << r.err;
    }
}

KVM_TEST_F(History, ParallelRunsAllSave) {
    auto db = temp_path("h.db");
    constexpr int kWriters = 4;
    std::vector<std::future<CliResult>> runs;
    for (int i = 0; i < kWriters; ++i)
        runs.push_back(std::async(std::launch::async, [&] { return quick_run(db); }));
    for (auto& f : runs) {
        auto r = f.get();
        EXPECT_EQ(r.rc, 0) << r.err;
        EXPECT_NE(r.err.find("saved as run"), std::string::npos) << r.err;
    }
    auto list = run_cli({"history", "list", "--db", db});
    EXPECT_EQ(lines(list.out), size_t(kWriters + 1)) << list.out;
}

KVM_TEST_F(History, LiveCompareSavesEachConfigurationAsARun) {
    auto db = temp_path("h.db");
    auto cmp = run_cli({"compare", "cpuid", "--a", "", "--b", "--guest-efer nx=off", "--rounds", "3", "-n", "64",
                        "-r", "2", "--no-baseline", "--db", db, "--label", "nx"});
    ASSERT_EQ(cmp.rc, 0) << cmp.err;
    EXPECT_NE(cmp.err.find("saved as run 1"), std::string::npos) << cmp.err;
    EXPECT_NE(cmp.err.find("saved as run 2"), std::string::npos) << cmp.err;
    auto list = run_cli({"history", "list", "--db", db, "--label", "nx/B"});
    ASSERT_EQ(list.rc, 0) << list.err;
    EXPECT_EQ(std::count(list.out.begin(), list.out.end(), '\n'), 2) << list.out;  // header and run 2
    auto ex = run_cli({"history", "export", "2", "--json", "--db", db});
    auto rep = result::from_json(nlohmann::json::parse(ex.out));
    EXPECT_EQ(find(rep, "cpuid").sessions.size(), 3u);  // one session per round
    EXPECT_EQ(rep.settings.sessions, 3u);
    // Saved, each configuration is one run (the pairing of its rounds is not
    // kept): one run a side, not testable at the run level.
    auto again = run_cli({"compare", "label:nx/A", "label:nx/B", "--db", db});
    ASSERT_EQ(again.rc, 0) << again.err;
    EXPECT_NE(again.out.find("level of the verdicts: the run"), std::string::npos) << again.out;
    EXPECT_NE(again.out.find("not testable at the run level (1 vs 1 run)"), std::string::npos) << again.out;
    // Saved results are not saved again; --no-save with --label is refused.
    EXPECT_EQ(run_cli({"compare", "run:1", "run:2", "--db", db, "--label", "x"}).rc, 2);
    EXPECT_EQ(run_cli({"compare", "cpuid", "--a", "", "--b", "", "--no-save", "--label", "x"}).rc, 2);
    auto none = run_cli({"compare", "cpuid", "--a", "", "--b", "", "--rounds", "2", "-n", "64", "-r", "2",
                         "--no-baseline", "--no-save"});
    ASSERT_EQ(none.rc, 0) << none.err;
    EXPECT_EQ(none.err.find("saved as run"), std::string::npos) << none.err;
}

// --since takes a UTC date, then a time to the hour, minute or second, and Z
// only after a time; anything else is a usage error. No KVM: an imported run.
TEST_F(History, SinceTakesOnlyAUtcDate) {
    auto db = temp_path("h.db");
    ASSERT_EQ(run_cli({"import", "kut", kut_fixture("vmexit_cpuid.log"), "--db", db}).rc, 0);
    for (const char* bad : {"yesterday", "2026-12-02Z", "2026-12-2", "2026-12-02T1", "2026-12-02T10:30:00:00"})
        EXPECT_EQ(run_cli({"history", "list", "--since", bad, "--db", db}).rc, 2) << bad;
    for (const char* good : {"2026-12-02", "2026-12-02T10", "2026-12-02T10:30Z", "2026-12-02T10:30:59"})
        EXPECT_EQ(run_cli({"history", "list", "--since", good, "--db", db}).rc, 0) << good;
}
