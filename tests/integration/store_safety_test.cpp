// The history store under attack (issue 24): --db checked before the run, a
// failed save exits 5 and keeps the result, read-only commands create and
// write nothing, SQLite's special names are refused, errors name the store,
// and strings from a shared store never reach the terminal raw.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_runner.h"
#include "tests/temp_dir.h"
#include "tests/paths.h"

namespace fs = std::filesystem;

namespace {



CliResult import_kut(const std::string& db, const std::vector<std::string>& extra = {}, const CliOptions& o = {},
                     const std::string& log = kut_fixture("vmexit_cpuid.log")) {
    std::vector<std::string> args{"import", "kut", log, "--db", db};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args, o);
}

const std::vector<std::string> kAsDaemon = {"/usr/bin/setpriv", "--reuid=1", "--regid=1", "--clear-groups"};

} // namespace

class StoreSafety : public eb::test::TempDirTest {};

KVM_TEST_F(StoreSafety, DbIsCheckedBeforeTheRun) {
    auto text = temp_path("notes.txt");
    std::ofstream(text) << std::string(4096, 'x');
    for (const std::string& db : {text, dir().string(), std::string("/proc/exitbench/history.db")}) {
        auto r = run_cli({"run", "cpuid", "-n", "64", "-r", "3", "--sessions", "1", "--db", db});
        EXPECT_EQ(r.rc, 2) << db << ": " << r.err;
        EXPECT_TRUE(one_line(r.err)) << r.err;
        EXPECT_NE(r.err.find(db), std::string::npos) << r.err;
        EXPECT_EQ(r.out.find("cycles/iter"), std::string::npos) << "ran before refusing " << db;
    }
    EXPECT_EQ(std::string(4096, 'x'), slurp(text));
}

TEST_F(StoreSafety, SqliteSpecialNamesAreRefused) {
    for (const std::string& db : {std::string(":memory:"), std::string("file:x.db?mode=memory"),
                                  "file:" + temp_path("y.db") + "?nolock=1"}) {
        auto r = import_kut(db);
        EXPECT_EQ(r.rc, 2) << db << ": " << r.err << r.out;
        EXPECT_TRUE(one_line(r.err)) << r.err;
        EXPECT_NE(r.err.find("--db names a file"), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(temp_path("y.db")));
}

// A full disk (a 4 KiB tmpfs of the test's own) fails the save after the
// run: exit 5, the result kept in TMPDIR, no empty store left, and the
// command printed imports it.
KVM_TEST_F(StoreSafety, FailedSaveExitsFiveKeepsTheResultAndSaysHowToImportIt) {
    if (std::system("unshare -m true 2>/dev/null") != 0) GTEST_SKIP() << "needs root to mount a tmpfs (unshare -m)";
    auto full = temp_path("full"), kept = temp_path("kept");
    fs::create_directories(full);
    fs::create_directories(kept);
    CliOptions o;
    // After exitbench, the shell lists what it left on the full filesystem.
    o.wrap = {"/usr/bin/unshare", "-m", "/bin/sh", "-c",
              "mount -t tmpfs -o size=4k tmpfs " + full + " || exit 99; \"$0\" \"$@\"; rc=$?; echo \"left:$(ls -A " +
                  full + ")\" >&2; exit $rc"};
    o.env = {"TMPDIR=" + kept};
    auto db = full + "/h.db";
    auto r = run_cli({"run", "cpuid", "-n", "64", "-r", "3", "--sessions", "1", "--db", db, "--label", "it's"}, o);
    EXPECT_EQ(r.rc, 5) << r.err;
    EXPECT_NE(r.out.find("cycles/iter"), std::string::npos);  // the results are still shown
    EXPECT_NE(r.err.find("error: not saved to the history"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("left:\n"), std::string::npos) << r.err;  // no empty store, no temporary file
    std::vector<fs::path> files(fs::directory_iterator(kept), fs::directory_iterator{});
    ASSERT_EQ(files.size(), 1u) << r.err;
    auto at = r.err.find("to save it: ");
    ASSERT_NE(at, std::string::npos) << r.err;
    std::string cmd = r.err.substr(at + 12, r.err.find('\n', at) - at - 12);
    EXPECT_EQ(cmd, "exitbench import run " + files[0].string() + " --db " + db + " --label 'it'\"'\"'s'");
    auto db2 = temp_path("h2.db");
    auto imp = run_cli({"import", "run", files[0].string(), "--db", db2, "--label", "it's"});
    ASSERT_EQ(imp.rc, 0) << imp.err;
    auto list = run_cli({"history", "list", "--db", db2});
    EXPECT_NE(list.out.find("it's"), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("cpuid"), std::string::npos) << list.out;
}

TEST_F(StoreSafety, ReadAndDeleteCommandsNeverCreateAStore) {
    auto typo = temp_path("typo/x.db");
    for (const std::vector<std::string>& args : {std::vector<std::string>{"history", "list"},
                                                 {"history", "rm", "1", "--yes"}, {"history", "show", "1"}}) {
        auto a = args;
        a.insert(a.end(), {"--db", typo});
        auto r = run_cli(a);
        EXPECT_EQ(r.rc, 2) << r.err;
        EXPECT_TRUE(one_line(r.err)) << r.err;
        EXPECT_NE(r.err.find(typo), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(temp_path("typo")));
}

// Another user's `history list` leaves no -wal/-shm of its own, which would
// make the owner's next save fail; and a read-only directory reads.
TEST_F(StoreSafety, ReadersWriteNothingBesideTheStore) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to act as two users (setpriv)";
    // The other users must reach the store and the log: a directory of its own
    // in /tmp, since $TMPDIR (CI's is 0700) or the clone may be closed to them.
    char base[] = "/tmp/exitbench-store-XXXXXX";
    ASSERT_NE(::mkdtemp(base), nullptr);
    struct Gone {
        std::string path;
        ~Gone() { std::error_code ec; fs::remove_all(path, ec); }
    } gone{base};
    ::chmod(base, 0711);
    auto shared = std::string(base) + "/shared";
    fs::create_directories(shared);
    ::chmod(shared.c_str(), 01777);
    auto log = std::string(base) + "/vmexit_cpuid.log";
    fs::copy_file(kut_fixture("vmexit_cpuid.log"), log);
    ::chmod(log.c_str(), 0644);
    auto db = shared + "/h.db";
    CliOptions owner;
    owner.wrap = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
    ASSERT_EQ(import_kut(db, {}, owner, log).rc, 0);
    // A new store is private (0600, like a trace); its owner shares it on purpose.
    ASSERT_EQ(::chmod(db.c_str(), 0644), 0);
    CliOptions other;
    other.wrap = kAsDaemon;
    auto list = run_cli({"history", "list", "--db", db}, other);
    ASSERT_EQ(list.rc, 0) << list.err;
    EXPECT_NE(list.out.find("[kvm-unit-tests]"), std::string::npos) << list.out;
    EXPECT_FALSE(fs::exists(db + "-wal"));
    EXPECT_FALSE(fs::exists(db + "-shm"));
    auto again = import_kut(db, {}, owner, log);
    EXPECT_EQ(again.rc, 0) << again.err;
    ::chmod(shared.c_str(), 0555);
    auto ro = run_cli({"history", "show", "2", "--db", db}, other);
    EXPECT_EQ(ro.rc, 0) << ro.err;
    ::chmod(shared.c_str(), 0755);
}

TEST_F(StoreSafety, ErrorsAfterOpeningNameTheStore) {
    auto db = temp_path("h.db");
    ASSERT_EQ(import_kut(db).rc, 0);
    {
        std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(4096);  // past the header: the file still opens, its tables do not read
        f << std::string(8192, '\x5a');
    }
    auto r = run_cli({"history", "list", "--db", db});
    EXPECT_EQ(r.rc, 2);
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("history database " + db), std::string::npos) << r.err;
}

TEST_F(StoreSafety, StringsFromTheStoreAreFilteredBeforeTheTerminal) {
    auto db = temp_path("h.db");
    ASSERT_EQ(import_kut(db, {"--label", "L\x1b[31m", "--note", "N\x1b]0;owned\x07"}).rc, 0);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"history", "list"}, {"history", "show", "1"}, {"history", "trend", "cpuid"},
          {"history", "list", "--label", "L\x1b[32m"}}) {
        auto a = args;
        a.insert(a.end(), {"--db", db});
        auto r = run_cli(a);
        EXPECT_EQ((r.out + r.err).find('\x1b'), std::string::npos) << args[1] << ": " << r.out << r.err;
        EXPECT_EQ((r.out + r.err).find('\x07'), std::string::npos) << args[1];
        if (r.rc == 0) {
            EXPECT_NE(r.out.find("L\\x1b[31m"), std::string::npos) << args[1] << ": " << r.out;
        }
    }
}
