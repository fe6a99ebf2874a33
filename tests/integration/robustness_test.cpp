// The robustness table the project prints about itself (issue 24): every
// hostile input class through the real binary (robustness_*.cpp), many
// writers at once into one store with a checker that every run is there
// exactly once and reads back, and a store held locked. One table: inputs
// tried, faults injected, runs written concurrently, results lost and
// crashes (both must be 0), and answers other than the documented one.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <thread>

#include "result/json.h"
#include "robustness.h"
#include "tests/temp_dir.h"

namespace fs = std::filesystem;
using Args = std::vector<std::string>;
using namespace eb::robust;

namespace {

constexpr int kWriters = 8, kImportsEach = 50;


// Every run present exactly once and reading back as the run it was.
void check_store(Row& row, const std::string& db) {
    sqlite3* h = nullptr;
    sqlite3_stmt* s = nullptr;
    sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_prepare_v2(h, "SELECT label, result_json, (SELECT count(*) FROM sessions WHERE run_id = runs.id) FROM runs",
                       -1, &s, nullptr);
    std::map<std::string, int> seen;
    while (sqlite3_step(s) == SQLITE_ROW) {
        std::string label = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
        ++seen[label];
        try {
            auto rep = eb::result::from_json(nlohmann::json::parse(reinterpret_cast<const char*>(sqlite3_column_text(s, 1))));
            if (rep.results.size() != 1 || rep.results[0].name != "cpuid" || sqlite3_column_int(s, 2) != 1)
                throw std::runtime_error("not the run imported");
        } catch (const std::exception& e) {
            ++row.wrong, row.why.push_back(label + " does not read back: " + e.what());
        }
    }
    sqlite3_finalize(s);
    sqlite3_close(h);
    for (int w = 0; w < kWriters; ++w)
        for (int i = 0; i < kImportsEach; ++i) {
            int n = seen[std::to_string(w) + "-" + std::to_string(i)];
            if (n == 0) ++row.lost, row.why.push_back("run " + std::to_string(w) + "-" + std::to_string(i) + " lost");
            if (n > 1) ++row.wrong, row.why.push_back("run " + std::to_string(w) + "-" + std::to_string(i) + " twice");
        }
}

// 8 writers x 50 imports (kvm-unit-tests logs and result files, alternately)
// into one store, with readers listing it meanwhile.
Row load_row(const std::string& dir) {
    Row row{"concurrent writers (8 x 50 imports)"};
    auto db = dir + "/load.db", log = kut_fixture("vmexit_cpuid.log");
    run_cli({"import", "kut", log, "--db", dir + "/src.db"});
    auto json = write_file(dir, "cpuid.json", run_cli({"history", "export", "1", "--json", "--db", dir + "/src.db"}).out);
    std::mutex m;
    std::atomic<bool> done{false};
    std::vector<std::thread> threads;
    for (int w = 0; w < kWriters; ++w)
        threads.emplace_back([&, w] {
            for (int i = 0; i < kImportsEach; ++i) {
                auto label = std::to_string(w) + "-" + std::to_string(i);
                auto r = run_cli(i % 2 ? Args{"import", "run", json, "--db", db, "--label", label}
                                       : Args{"import", "kut", log, "--db", db, "--label", label});
                std::lock_guard g(m);
                tally(row, "writer " + label, r, {0});
                row.concurrent += r.rc == 0;
            }
        });
    std::vector<std::thread> readers;
    for (int k = 0; k < 2; ++k)
        readers.emplace_back([&] {
            while (!done.load()) {
                if (!fs::exists(db)) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(10));
                    continue;
                }
                auto r = run_cli({"history", "list", "--db", db});
                std::lock_guard g(m);
                tally(row, "reader", r, {0});
            }
        });
    for (auto& t : threads) t.join();
    done.store(true);
    for (auto& t : readers) t.join();
    row.note = fmt::format("{} runs saved by {} writers", row.concurrent, kWriters);
    check_store(row, db);
    return row;
}

// A store another process holds the write lock of: a save waits for it (a
// brief lock) or, past the 30 s busy timeout, fails with one line and
// saves nothing; readers read meanwhile. Runs beside the other rows.
Row locked_row(const std::string& dir) {
    Row row{"a locked store"};
    auto db = dir + "/locked.db";
    run_cli({"import", "kut", kut_fixture("vmexit_cpuid.log"), "--db", db});
    auto hold = [&](double s, const std::function<void()>& meanwhile) {
        sqlite3* h = nullptr;
        sqlite3_open(db.c_str(), &h);
        sqlite3_exec(h, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
        ++row.faults;
        auto released = std::async(std::launch::async, [h, s] {
            std::this_thread::sleep_for(std::chrono::duration<double>(s));
            sqlite3_exec(h, "ROLLBACK", nullptr, nullptr, nullptr);
            sqlite3_close(h);
        });
        meanwhile();
    };
    hold(1.5, [&] {
        tally(row, "reader under the lock", run_cli({"history", "list", "--db", db}), {0});
        tally(row, "save under a brief lock", run_cli({"import", "kut", kut_fixture("vmexit_ipi.log"), "--db", db}), {0});
    });
    // Held until the save has given up, however long a loaded machine takes
    // to start it: a lock released on a timer could let a late save succeed.
    CliResult r;
    sqlite3* h = nullptr;
    sqlite3_open(db.c_str(), &h);
    sqlite3_exec(h, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    ++row.faults;
    r = run_cli({"import", "kut", kut_fixture("vmexit_inl_pmtimer.log"), "--db", db});
    sqlite3_exec(h, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(h);
    tally(row, "save under a lock held past the timeout", r, {2});
    if (r.err.find("locked") == std::string::npos) ++row.wrong, row.why.push_back("not said locked: " + r.err);
    auto list = run_cli({"history", "list", "--db", db});
    tally(row, "the store after the lock", list, {0});
    if (list.out.find("ipi") == std::string::npos || list.out.find("cpuid") == std::string::npos)
        ++row.lost, row.why.push_back("a saved run is gone: " + list.out);
    if (list.out.find("inl_from_pmtimer") != std::string::npos) ++row.wrong, row.why.push_back("a failed save saved");
    return row;
}

void print_table(const std::vector<Row>& rows) {
    std::string out = "robustness of exitbench against hostile input and faults (tests/integration/robustness_test.cpp)\n";
    out += fmt::format("{:<38} {:>6} {:>6} {:>10} {:>5} {:>7} {:>5}  {}\n", "class", "inputs", "faults",
                       "concurrent", "lost", "crashes", "wrong", "note");
    Row total{"total"};
    for (const auto& r : rows) {
        auto note = r.skipped.empty() ? r.note : "skipped: " + r.skipped;
        auto line = fmt::format("{:<38} {:>6} {:>6} {:>10} {:>5} {:>7} {:>5}  {}", r.name, r.inputs, r.faults,
                                r.concurrent, r.lost, r.crashes, r.wrong, note);
        out += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
        total.inputs += r.inputs, total.faults += r.faults, total.concurrent += r.concurrent;
        total.lost += r.lost, total.crashes += r.crashes, total.wrong += r.wrong;
    }
    out += fmt::format("{:<38} {:>6} {:>6} {:>10} {:>5} {:>7} {:>5}\n", total.name, total.inputs, total.faults,
                       total.concurrent, total.lost, total.crashes, total.wrong);
    std::fputs(out.c_str(), stdout);
    std::fflush(stdout);
}

// The rows this process ran, printed as one table when it ends: ctest runs
// each row as its own test (so they run side by side and each stays short),
// and `integration_tests --gtest_filter='Robustness.*'` prints the whole table.
std::vector<Row>& rows_run() {
    static std::vector<Row> rows;
    return rows;
}

class PrintTheTable : public ::testing::Environment {
    void TearDown() override {
        if (!rows_run().empty()) print_table(rows_run());
    }
};
const auto* const kTable = ::testing::AddGlobalTestEnvironment(new PrintTheTable);

// inputs: exitbench invocations; faults: signals, full disks, held locks,
// stdout gone; concurrent: runs saved while 7 other writers saved to the same
// store; lost: runs said saved (or saved before) that the store lacks;
// crashes: deaths by a signal the test did not send, or an exit status
// outside 0-5 and 130; wrong: any other status than the documented one, an
// error of more than one line, or an ESC or BEL reaching the output.
void check_row(Row (*make)(const std::string&)) {
    eb::test::TempDir tmp;
    Row r = make(tmp.dir().string());
    rows_run().push_back(r);
    EXPECT_EQ(r.lost, 0) << r.name;
    EXPECT_EQ(r.crashes, 0) << r.name;
    EXPECT_EQ(r.wrong, 0) << r.name;
    for (const auto& w : r.why) ADD_FAILURE() << r.name << ": " << w;
    // A hung invocation is killed at its own timeout (run_cli), named, and
    // counted as a crash: no row is bounded by the clock.
    if (!r.skipped.empty()) GTEST_SKIP() << r.skipped;
}

} // namespace

TEST(Robustness, Arguments) { check_row(arguments_row); }
TEST(Robustness, ResultFiles) { check_row(result_files_row); }
TEST(Robustness, KutLogs) { check_row(kut_logs_row); }
TEST(Robustness, PerfText) { check_row(perf_text_row); }
TEST(Robustness, PerfData) { check_row(perf_data_row); }
TEST(Robustness, HistoryDatabases) { check_row(db_files_row); }
TEST(Robustness, ExportTargets) { check_row(export_targets_row); }
TEST(Robustness, Signals) { check_row(signals_row); }
TEST(Robustness, FullDisk) { check_row(full_disk_row); }
TEST(Robustness, ConcurrentWriters) {
    check_row([](const std::string& dir) {
        Row row = load_row(dir);
        EXPECT_EQ(row.concurrent, kWriters * kImportsEach);
        return row;
    });
}
TEST(Robustness, ALockedStore) { check_row(locked_row); }
KVM_TEST(Robustness, RunsUnderKvm) { check_row(kvm_row); }
// The save rows: import's path here; run's, calibrate's and a live compare's,
// which measure, in rows of their own under /dev/kvm.
TEST(Robustness, SavePathsUnderALockedStore) { check_row(locked_saves_row); }
TEST(Robustness, SavePathsOnAFullDisk) { check_row(full_disk_saves_row); }
TEST(Robustness, SavePathsInAReadOnlyFolder) { check_row(read_only_saves_row); }
TEST(Robustness, SavePathsConcurrently) { check_row(concurrent_saves_row); }
KVM_TEST(Robustness, MeasuringSavePathsUnderALockedStore) { check_row(measuring<locked_saves_row>); }
KVM_TEST(Robustness, MeasuringSavePathsOnAFullDisk) { check_row(measuring<full_disk_saves_row>); }
KVM_TEST(Robustness, MeasuringSavePathsInAReadOnlyFolder) { check_row(measuring<read_only_saves_row>); }
KVM_TEST(Robustness, MeasuringSavePathsConcurrently) { check_row(measuring<concurrent_saves_row>); }
TEST(Robustness, OptionFuzz) { check_row(option_fuzz_row); }
