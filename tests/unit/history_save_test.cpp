// Saving to the history when things go wrong (issue 24): a full disk leaves
// no store behind and the CLI keeps the result beside it; --db is a path;
// reading creates nothing; errors name the store.
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

#include "cli/history.h"
#include "history/path.h"
#include "history/store.h"
#include "result/json.h"
#include "sample_report.h"
#include "tests/temp_dir.h"

namespace fs = std::filesystem;
using namespace eb;
using history::Store;
using history::StoreError;

namespace {

suite::RunReport small_run() {
    auto r = sample_report();
    r.provenance = {"2026-01-02T03:04:05Z", "hostA", {"exitbench", "run", "cpuid"}, "", "boot-1"};
    return r;
}

// Files may not grow past `bytes` while this lives (as on a nearly full disk).
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        ::getrlimit(RLIMIT_FSIZE, &old_);
        old_sig_ = std::signal(SIGXFSZ, SIG_IGN);
        rlimit l{bytes, old_.rlim_max};
        ::setrlimit(RLIMIT_FSIZE, &l);
    }
    ~FileSizeLimit() {
        ::setrlimit(RLIMIT_FSIZE, &old_);
        std::signal(SIGXFSZ, old_sig_);
    }

private:
    rlimit old_{};
    void (*old_sig_)(int) = nullptr;
};

std::vector<std::string> names(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

class HistorySave : public eb::test::TempDirTest {};

TEST_F(HistorySave, AFailedFirstSaveLeavesNoStore) {
    auto db = temp_path("h.db");
    {
        FileSizeLimit full(8192);  // an empty store with its tables alone is bigger
        EXPECT_THROW(history::save_run(db, small_run(), "", ""), StoreError);
    }
    EXPECT_TRUE(names(dir()).empty()) << names(dir()).front();
    EXPECT_EQ(history::save_run(db, small_run(), "", ""), 1);
}

TEST_F(HistorySave, TheCliKeepsAnUnsavedResultBesideTheStoreAndSaysHowToImportIt) {
    auto db = temp_path("h.db");
    testing::internal::CaptureStderr();
    bool saved;
    {
        FileSizeLimit full(16384);  // the result's JSON fits, the store does not
        saved = cli::save_run(db, small_run(), "before v2", "");
    }
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_FALSE(saved);
    auto left = names(dir());
    ASSERT_EQ(left.size(), 1u) << err;
    EXPECT_TRUE(left[0].starts_with("h.db.unsaved-2026-01-02T030405Z-")) << left[0];
    auto kept = temp_path(left[0]);
    EXPECT_NE(err.find("error: not saved to the history"), std::string::npos) << err;
    EXPECT_NE(err.find("exitbench import run " + kept + " --db " + db + " --label 'before v2'\n"), std::string::npos)
        << err;
    std::ifstream f(kept);
    auto back = result::from_json(nlohmann::json::parse(f));
    EXPECT_EQ(history::save_run(db, back, "before v2", ""), 1);
    EXPECT_EQ(Store(db, Store::Mode::ReadOnly).list({}).at(0).label, "before v2");
}

// A live compare saves one run per configuration, all with one timestamp.
TEST_F(HistorySave, UnsavedResultsNeverOverwriteEachOther) {
    auto db = temp_path("h.db");
    testing::internal::CaptureStderr();
    {
        FileSizeLimit full(16384);
        EXPECT_FALSE(cli::save_run(db, small_run(), "x/A", ""));
        EXPECT_FALSE(cli::save_run(db, small_run(), "x/B", ""));
    }
    std::string err = testing::internal::GetCapturedStderr();
    auto left = names(dir());
    ASSERT_EQ(left.size(), 2u) << err;
    EXPECT_TRUE(left[0].ends_with("-2.json") || left[1].ends_with("-2.json")) << left[0] << " " << left[1];
}

TEST_F(HistorySave, DbIsAPathNotAnSqliteName) {
    for (std::string name : {"", ":memory:", "file:x.db?mode=memory", "file:h.db?nolock=1"}) {
        EXPECT_THROW(history::check_save_target(name), StoreError) << name;
        EXPECT_THROW(history::save_run(name, small_run(), "", ""), StoreError) << name;
        EXPECT_THROW(Store(name, Store::Mode::ReadWrite), StoreError) << name;
    }
    // Anything else is a file of that name, '?' and '%' included.
    auto odd = temp_path("h?mode=memory%20.db");
    EXPECT_EQ(history::save_run(odd, small_run(), "", ""), 1);
    EXPECT_EQ(Store(odd, Store::Mode::ReadOnly).ids().size(), 1u);
}

TEST_F(HistorySave, SaveTargetsAreCheckedUpFront) {
    history::check_save_target(temp_path("new/h.db"));  // absent: its directory can be made
    std::ofstream(temp_path("empty.db"));
    history::check_save_target(temp_path("empty.db"));  // SQLite makes a store of an empty file
    std::ofstream(temp_path("text")) << std::string(200, 'x');
    EXPECT_THROW(history::check_save_target(temp_path("text")), StoreError);
    EXPECT_THROW(history::check_save_target(dir().string()), StoreError);
    EXPECT_THROW(history::check_save_target("/proc/exitbench/h.db"), StoreError);
    EXPECT_EQ(std::string(200, 'x'), [&] {
        std::ifstream f(temp_path("text"));
        return std::string(std::istreambuf_iterator<char>(f), {});
    }());
}

TEST_F(HistorySave, ReadingAndDeletingCreateNothing) {
    auto db = temp_path("h.db");
    history::save_run(db, small_run(), "", "");
    {
        Store st(db, Store::Mode::ReadOnly);
        EXPECT_EQ(st.list({}).size(), 1u);
        EXPECT_FALSE(fs::exists(db + "-wal"));  // another user's reader would own these
        EXPECT_FALSE(fs::exists(db + "-shm"));
    }
    auto typo = temp_path("typo/x.db");
    for (auto mode : {Store::Mode::ReadOnly, Store::Mode::Modify}) {
        try {
            Store st(typo, mode);
            ADD_FAILURE() << "opened a store that does not exist";
        } catch (const StoreError& e) {
            EXPECT_NE(std::string(e.what()).find(typo), std::string::npos) << e.what();
        }
    }
    EXPECT_FALSE(fs::exists(temp_path("typo")));
}

TEST_F(HistorySave, ErrorsAfterOpeningNameTheStore) {
    auto db = temp_path("h.db");
    history::save_run(db, small_run(), "", "");
    {
        std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(4096);  // the header and schema page stay, the tables go
        f << std::string(16384, '\x5a');
    }
    try {
        Store st(db, Store::Mode::ReadOnly);
        st.list({});
        ADD_FAILURE() << "read a corrupt store";
    } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("history database " + db + ": "), std::string::npos) << e.what();
    }
}

// The robustness table's load row: with 8 writers, a save's check read the
// store immutable (no -wal at that instant) while another writer's
// checkpoint rewrote it, and failed "database disk image is malformed". A
// check before a save takes SQLite's locks, as the save will: its -shm
// exists while it is open (an immutable read makes none).
TEST_F(HistorySave, TheCheckBeforeASaveTakesTheLocks) {
    auto path = temp_path("h.db");
    history::save_run(path, small_run(), "", "");
    ASSERT_FALSE(fs::exists(path + "-shm"));  // closed: checkpointed and removed
    ASSERT_TRUE(history::reads_as_immutable(path));
    {
        Store st(path, Store::Mode::Check);
        EXPECT_TRUE(fs::exists(path + "-shm"));
    }
    history::save_run(path, small_run(), "", "");  // as import and run do next; it closes last and tidies
    EXPECT_FALSE(fs::exists(path + "-shm"));
    Store st(path, Store::Mode::ReadOnly);  // a reader still creates nothing
    EXPECT_EQ(st.list({}).size(), 2u);
    EXPECT_FALSE(fs::exists(path + "-shm"));
}

TEST_F(HistorySave, ChecksAndSavesOfManyWritersAllSucceed) {
    auto path = temp_path("h.db");
    constexpr int kWriters = 8, kRuns = 12;
    std::atomic<int> failures{0};
    std::vector<std::thread> ts;
    for (int w = 0; w < kWriters; ++w)
        ts.emplace_back([&] {
            for (int i = 0; i < kRuns; ++i) try {  // as `import` does: check, then save, each its own connection
                    history::check_save_target(path);
                    history::save_run(path, small_run(), "", "");
                } catch (const std::exception& e) {
                    ++failures;
                    ADD_FAILURE() << e.what();
                }
        });
    for (auto& t : ts) t.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(Store(path, Store::Mode::ReadOnly).list({}).size(), size_t(kWriters * kRuns));
}
