// Defects the robustness table (robustness_test.cpp) found, each pinned:
// a FIFO or device named as an input was waited on for ever; arguments
// reached the terminal raw in parse errors; a stopped import died without
// saying which runs it had saved; a stop signal killed a reading command
// instead of ending it with 130. No KVM needed.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <thread>

#include "cli_runner.h"
#include "tests/paths.h"
#include "tests/temp_dir.h"

namespace fs = std::filesystem;

namespace {


std::string kut(const std::string& name) { return eb::test::fixtures_dir() + "/kut/" + name; }

} // namespace

class HostileInput : public eb::test::TempDirTest {};

TEST_F(HostileInput, FifosAndDevicesAreRefusedNotWaitedOn) {
    auto fifo = temp_path("fifo"), db = temp_path("h.db"), good = temp_path("good.json");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    ASSERT_EQ(run_cli({"import", "kut", kut("vmexit_cpuid.log"), "--db", db}).rc, 0);
    std::ofstream(good) << run_cli({"history", "export", "1", "--json", "--db", db}).out;
    CliOptions quick;
    quick.timeout_s = 120;  // a wait on the FIFO is killed here (named), and fails below
    for (const std::string& input : {fifo, std::string("/dev/zero")})
        for (const std::vector<std::string>& args :
             {std::vector<std::string>{"import", "run", input, "--db", db}, {"compare", input, good},
              {"report", "merge", input, good}, {"profile", "report", "-i", input}}) {
            auto r = run_cli(args, quick);
            EXPECT_EQ(r.rc, 2) << args[0] << " " << input << ": " << r.err;
            EXPECT_TRUE(one_line(r.err)) << r.err;
            EXPECT_NE(r.err.find(input + ": not a regular file"), std::string::npos) << r.err;
        }
}

TEST_F(HostileInput, ArgumentsReachTheTerminalFiltered) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"\x1b[31mrun"}, {"run\n"}, {"run", "--\x1b]0;owned\x07"},
          {"history", "list", "\x1b[2J"}}) {
        auto r = run_cli(args);
        EXPECT_EQ(r.rc, 2) << r.err;
        EXPECT_TRUE(one_line(r.err)) << r.err;
        EXPECT_EQ(r.err.find_first_of("\x1b\x07"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("\\x"), std::string::npos) << r.err;
    }
}

// A stop signal while an import saves: the runs saved so far are on stdout as
// they are saved, the rest named, exit 130; the store holds exactly those.
TEST_F(HostileInput, AStoppedImportSaysWhatItSavedAndExits130) {
    auto logs = temp_path("logs"), db = temp_path("h.db");
    fs::create_directories(logs);
    std::vector<std::string> args{"import", "kut", "--db", db};
    for (int i = 0; i < 400; ++i) {
        args.push_back(logs + "/" + std::to_string(i) + ".txt");
        std::ofstream(args.back()) << "cpuid " << 1000 + i << "\n";
    }
    CliOptions o;
    o.signal = SIGTERM;
    o.signal_when = [&](int) { return fs::exists(db); };  // the first run is saved
    auto r = run_cli(args, o);
    EXPECT_EQ(r.term_signal, 0);
    ASSERT_EQ(r.rc, 130) << r.err;
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("interrupted: "), std::string::npos) << r.err;
    size_t said = 0;
    for (size_t at = 0; (at = r.out.find(" as run ", at)) != std::string::npos; ++at) ++said;
    auto list = run_cli({"history", "list", "--db", db});
    ASSERT_EQ(list.rc, 0) << list.err;
    EXPECT_GT(said, 0u);
    EXPECT_LT(said, 400u);
    EXPECT_EQ(size_t(std::count(list.out.begin(), list.out.end(), '\n')), said + 1) << r.out << list.out;
}

// A reading command waits on a store another process holds locked (in
// rollback-journal mode, where readers wait): a stop signal ends it with
// 130, the status exitbench documents, rather than killing it.
TEST_F(HostileInput, AStopSignalEndsAWaitingReaderWith130) {
    auto db = temp_path("h.db");
    ASSERT_EQ(run_cli({"import", "kut", kut("vmexit_cpuid.log"), "--db", db}).rc, 0);
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h, "PRAGMA journal_mode = DELETE; BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
    CliOptions o;
    o.signal = SIGTERM;
    o.signal_when = [](int pid) { return catches(pid, SIGTERM); };
    o.timeout_s = 300;
    auto r = run_cli({"history", "list", "--db", db}, o);
    sqlite3_exec(h, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(h);
    EXPECT_EQ(r.term_signal, 0) << r.err;
    EXPECT_EQ(r.rc, 130) << r.err;
}

// An empty --db (a script's unset variable) saved to the default store.
TEST_F(HostileInput, AnEmptyDbIsRefusedNotTheDefaultStore) {
    auto xdg = temp_path("xdg");
    CliOptions o;
    o.env = {"XDG_DATA_HOME=" + xdg};
    for (const std::vector<std::string>& args : {std::vector<std::string>{"import", "kut", kut("vmexit_cpuid.log")},
                                                 {"history", "rm", "1", "--yes"}, {"history", "list"}}) {
        auto a = args;
        a.insert(a.end(), {"--db", ""});
        auto r = run_cli(a, o);
        EXPECT_EQ(r.rc, 2) << args[0] << ": " << r.out << r.err;
        EXPECT_TRUE(one_line(r.err)) << r.err;
        EXPECT_NE(r.err.find("--db '': an empty path"), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(xdg));
}

// A symlink loop given to compare: exit 3 and libstdc++'s "filesystem error".
TEST_F(HostileInput, ASymlinkLoopIsAnInputError) {
    auto a = temp_path("loop-a"), b = temp_path("loop-b");
    fs::create_symlink(b, a);
    fs::create_symlink(a, b);
    auto r = run_cli({"compare", a, b});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_EQ(r.err.find("filesystem error"), std::string::npos) << r.err;
}

// perf's own complaint once reached stderr as a second line; the reader's
// own (ingest/perf_file.h) is the one line now.
TEST_F(HostileInput, JunkAfterThePerfDataMagicIsOneLine) {
    auto data = temp_path("bad.data");
    std::ofstream(data) << "PERFILE2" << std::string(200, '\x07');
    auto r = run_cli({"profile", "import", data, "-o", temp_path("out.trace")});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("a file header of 506381209866536711 bytes, not perf's 104"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(temp_path("out.trace")));
}

// A reader whose immutable read overlapped a writer's checkpoint failed
// "malformed" (seen by the table's readers under load): the store is read
// again. Here the store reads malformed for its first 80 ms, then whole.
TEST_F(HostileInput, AReadThatOverlapsACheckpointIsTriedAgain) {
    auto db = temp_path("h.db");
    ASSERT_EQ(run_cli({"import", "kut", kut("vmexit_cpuid.log"), "--db", db}).rc, 0);
    auto whole = slurp(db);
    ASSERT_GT(whole.size(), 8192u);
    {
        std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(4096);
        f << std::string(4096, '\x5a');
    }
    std::thread restore([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(80));
        std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(4096);
        f << whole.substr(4096, 4096);
    });
    auto r = run_cli({"history", "list", "--db", db});
    restore.join();
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("cpuid"), std::string::npos) << r.out;
}
