// The history store on temporary database files: round trips, queries,
// migrations refused or applied, bad files, concurrent writers.
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <thread>
#include <unistd.h>

#include "history/store.h"
#include "result/json.h"
#include "sample_report.h"
#include "tests/temp_dir.h"

using namespace eb;
using history::Store;
using history::StoreError;

namespace {

suite::RunReport report_at(const std::string& when, const std::string& host = "hostA") {
    auto r = sample_report();
    r.provenance = {when, host, {"exitbench", "run", "cpuid"}, "v0.1-3-gabc", "boot-1"};
    return r;
}

void raw_sql(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
}

} // namespace

class HistoryStore : public eb::test::TempDirTest {};

TEST_F(HistoryStore, SavesAndReadsBackARun) {
    auto path = temp_path("sub/dir/history.db");  // directories are made
    Store st(path, Store::Mode::ReadWrite);
    auto id = st.save(report_at("2026-12-01T07:00:00Z"), "before", "v1 of the patch");
    auto row = st.run(id);
    ASSERT_TRUE(row);
    EXPECT_EQ(row->label, "before");
    EXPECT_EQ(row->note, "v1 of the patch");
    EXPECT_EQ(row->hostname, "hostA");
    EXPECT_EQ(row->kernel_release, "6.1.0");
    EXPECT_EQ(row->boot_id, "boot-1");
    EXPECT_EQ(row->tests, (std::vector<std::string>{"baseline", "cpuid", "ipi", "vmcall"}));
    auto back = result::from_json(nlohmann::json::parse(*st.result_json(id)));
    EXPECT_EQ(back.provenance.argv, (std::vector<std::string>{"exitbench", "run", "cpuid"}));
    EXPECT_EQ(back.results.at(1).sessions.at(0).samples, (std::vector<double>{1234.7, 1300, 1200}));
    EXPECT_FALSE(st.run(id + 1));
}

TEST_F(HistoryStore, ListFiltersByLabelTestAndTime) {
    Store st(temp_path("h.db"), Store::Mode::ReadWrite);
    st.save(report_at("2026-11-01T00:00:00Z"), "A", "");
    auto only_cpuid = report_at("2026-12-01T00:00:00Z");
    only_cpuid.results.resize(2);
    st.save(only_cpuid, "B", "");
    EXPECT_EQ(st.list({}).size(), 2u);
    EXPECT_EQ(st.list({"A", "", ""}).size(), 1u);
    EXPECT_EQ(st.list({"", "vmcall", ""}).size(), 1u);
    EXPECT_EQ(st.list({"", "vmcal", ""}).size(), 0u);  // whole names only
    EXPECT_EQ(st.list({"", "", "2026-11-15"}).size(), 1u);
    EXPECT_EQ(st.labels(), (std::vector<std::string>{"A", "B"}));
}

TEST_F(HistoryStore, TrendHasOneMedianPerSession) {
    Store st(temp_path("h.db"), Store::Mode::ReadWrite);
    auto r = report_at("2026-12-01T00:00:00Z");
    r.results[1].sessions.push_back({{2000, 2002, 2004}, 64});
    st.save(r, "", "");
    st.save(report_at("2026-12-02T00:00:00Z", "hostB"), "", "");
    auto t = st.trend("cpuid", "");
    ASSERT_EQ(t.size(), 3u);
    EXPECT_DOUBLE_EQ(t[0].median_cycles, 1234.7);
    EXPECT_DOUBLE_EQ(t[1].median_cycles, 2002);
    EXPECT_EQ(t[1].session, 1);
    EXPECT_EQ(st.trend("cpuid", "hostB").size(), 1u);
}

TEST_F(HistoryStore, PreviousLikeNeedsSameTestsAndHost) {
    Store st(temp_path("h.db"), Store::Mode::ReadWrite);
    auto a = st.save(report_at("2026-12-01T00:00:00Z"), "", "");
    st.save(report_at("2026-12-01T01:00:00Z", "other-host"), "", "");
    auto fewer = report_at("2026-12-01T02:00:00Z");
    fewer.results.resize(2);
    st.save(fewer, "", "");
    auto last = st.save(report_at("2026-12-01T03:00:00Z"), "", "");
    EXPECT_EQ(st.newest(), last);
    EXPECT_EQ(st.previous_like(last), a);
    EXPECT_FALSE(st.previous_like(a));
}

TEST_F(HistoryStore, RemoveDeletesSessionsAndEnvironmentToo) {
    auto path = temp_path("h.db");
    int64_t id;
    {
        Store st(path, Store::Mode::ReadWrite);
        auto r = report_at("2026-12-01T00:00:00Z");
        r.env = {{"cpu.microcode", "0x1"}};
        id = st.save(r, "", "");
        EXPECT_EQ(st.env(id).size(), 1u);
        EXPECT_TRUE(st.remove(id));
        EXPECT_FALSE(st.remove(id));
        EXPECT_TRUE(st.trend("cpuid", "").empty());
        EXPECT_TRUE(st.env(id).empty());
    }
}

TEST_F(HistoryStore, ReadOnlyModeNeedsAnExistingFile) {
    try {
        Store st(temp_path("absent.db"), Store::Mode::ReadOnly);
        FAIL() << "opened a missing store";
    } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("no history database"), std::string::npos) << e.what();
    }
}

TEST_F(HistoryStore, RefusesCorruptForeignAndNewerFiles) {
    auto corrupt = temp_path("corrupt.db");
    std::ofstream(corrupt) << std::string(4096, 'x');
    EXPECT_THROW(Store(corrupt, Store::Mode::ReadWrite), StoreError);

    auto foreign = temp_path("foreign.db");
    raw_sql(foreign, "CREATE TABLE t(x)");
    try {
        Store st(foreign, Store::Mode::ReadWrite);
        FAIL() << "opened a foreign database";
    } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("not an exitbench history"), std::string::npos) << e.what();
    }

    auto newer = temp_path("newer.db");
    { Store st(newer, Store::Mode::ReadWrite); }
    raw_sql(newer, "PRAGMA user_version = " + std::to_string(history::kStoreVersion + 1));
    try {
        Store st(newer, Store::Mode::ReadOnly);
        FAIL() << "opened a newer schema";
    } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("newer than this exitbench"), std::string::npos) << e.what();
    }
}

TEST_F(HistoryStore, UnwritableLocationIsAnErrorNotACrash) {
    // /proc refuses new files even to root, unlike a chmod-ed directory.
    EXPECT_THROW(Store("/proc/exitbench-test/history.db", Store::Mode::ReadWrite), StoreError);
    EXPECT_THROW(Store("/proc/history.db", Store::Mode::ReadWrite), StoreError);
}

TEST_F(HistoryStore, UsesWalAndSchemaVersion) {
    auto path = temp_path("h.db");
    { Store st(path, Store::Mode::ReadWrite); }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    auto one = [&](const char* sql) {
        sqlite3_stmt* s = nullptr;
        sqlite3_prepare_v2(db, sql, -1, &s, nullptr);
        sqlite3_step(s);
        std::string v = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
        sqlite3_finalize(s);
        return v;
    };
    EXPECT_EQ(one("PRAGMA journal_mode"), "wal");
    EXPECT_EQ(one("PRAGMA user_version"), std::to_string(history::kStoreVersion));
    sqlite3_close(db);
}

TEST_F(HistoryStore, ConcurrentWritersAllSucceed) {
    auto path = temp_path("h.db");
    constexpr int kWriters = 6, kRuns = 5;
    std::vector<std::thread> ts;
    std::atomic<int> failures{0};
    for (int w = 0; w < kWriters; ++w)
        ts.emplace_back([&, w] {
            try {
                Store st(path, Store::Mode::ReadWrite);  // each its own connection, as separate processes
                for (int i = 0; i < kRuns; ++i) st.save(report_at("2026-12-01T00:00:00Z"), "w" + std::to_string(w), "");
            } catch (const std::exception& e) {
                ++failures;
                ADD_FAILURE() << e.what();
            }
        });
    for (auto& t : ts) t.join();
    EXPECT_EQ(failures.load(), 0);
    Store st(path, Store::Mode::ReadOnly);
    EXPECT_EQ(st.list({}).size(), size_t(kWriters * kRuns));
}

TEST_F(HistoryStore, ImportedRunsKeepTheirSourceAndOldStoresMigrate) {
    auto path = temp_path("h.db");
    {
        Store st(path, Store::Mode::ReadWrite);
        st.save(report_at("2026-12-01T07:00:00Z"), "mine", "");
    }
    // A store as schema version 1 left it: no source column, no calibrations.
    raw_sql(path, "ALTER TABLE runs DROP COLUMN source; DROP TABLE calibration_tests; DROP TABLE calibrations; "
                  "PRAGMA user_version = 1");
    Store st(path, Store::Mode::ReadWrite);
    auto imported = report_at("2026-12-01T08:00:00Z", "");
    imported.provenance.imported = suite::ImportSource{"kvm-unit-tests", "serial.log", std::string(64, 'a')};
    auto id = st.save(imported, "kut", "");
    EXPECT_EQ(st.run(1)->source, "");
    EXPECT_EQ(st.run(id)->source, "kvm-unit-tests");
    auto back = result::from_json(nlohmann::json::parse(*st.result_json(id)));
    ASSERT_TRUE(back.provenance.imported);
    EXPECT_EQ(back.provenance.imported->file, "serial.log");
    // --against last never pairs an imported run with a measured one.
    auto again = report_at("2026-12-01T09:00:00Z", "");
    EXPECT_FALSE(st.previous_like(st.save(again, "", "")));
}
