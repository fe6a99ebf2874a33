// Issue 40's rows, each through the real binary: a calibrate whose save fails
// keeps its work; kselftest's fail for a failed configuration; exports that
// follow no planted link and keep a file's mode and group; the fleet textfile
// under SIGTERM; calibrate under SIGKILL and SIGTERM; no folders of a
// mistyped --db; no 0.0 for a configuration that did not run; "disk full",
// KTAP on an error, and a 0600 store. (Rows 4 and 5, the calibration rows
// read back, are unit tests: tests/unit/calibration_test.cpp.)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <grp.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "cli_runner.h"
#include "robustness.h"
#include "tests/paths.h"

namespace fs = std::filesystem;
using nlohmann::json;
using Args = std::vector<std::string>;

namespace {

// The children of `pid` (its /proc children list), as pids.
std::vector<int> children_of(int pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    std::vector<int> out;
    for (int c; f >> c;) out.push_back(c);
    return out;
}

// Waits until `pid` is stopped (job control): true, or false if it never was.
bool stopped(int pid) {
    for (int i = 0; i < 20000; ++i) {
        auto st = slurp("/proc/" + std::to_string(pid) + "/stat");
        auto at = st.rfind(')');
        if (at == std::string::npos || at + 2 >= st.size()) return false;
        if (st[at + 2] == 'T') return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
}

// SIGTERM is pending at `pid` (a stopped process keeps what it was sent).
bool term_pending(int pid) {
    std::istringstream in(slurp("/proc/" + std::to_string(pid) + "/status"));
    for (std::string line; std::getline(in, line);)
        if (line.rfind("ShdPnd:", 0) == 0 || line.rfind("SigPnd:", 0) == 0)
            if (std::stoull(line.substr(7), nullptr, 16) & (1ull << (SIGTERM - 1))) return true;
    return false;
}

bool alive(int pid) { return ::kill(pid, 0) == 0 && slurp("/proc/" + std::to_string(pid) + "/stat").find(") Z") == std::string::npos; }

mode_t mode_of(const std::string& p) {
    struct stat st {};
    ::stat(p.c_str(), &st);
    return st.st_mode & 07777;
}

// Two saved results from an import, the second's first test as `status` with no sessions.
std::pair<std::string, std::string> results(const TempDir& dir, const std::string& status = "") {
    auto db = dir.file("src.db");
    run_cli({"import", "kut", kut_fixture("vmexit_cpuid.log"), "--db", db});
    auto a = dir.file("a.json"), b = dir.file("b.json");
    std::ofstream(a) << run_cli({"history", "export", "1", "--json", "--db", db}).out;
    auto doc = json::parse(slurp(a));
    for (auto& x : doc["results"][0]["sessions"][0]["samples_cycles_per_iter"]) x = x.get<double>() * 1.01;
    doc["provenance"]["timestamp_utc"] = "2026-01-02T03:04:05Z";
    if (!status.empty()) {
        doc["results"][0]["status"] = status;
        doc["results"][0]["sessions"] = json::array();
    }
    std::ofstream(b) << doc.dump();
    return {a, b};
}

CliOptions slow() {
    CliOptions o;
    o.timeout_s = 300;
    return o;
}

} // namespace

// Row 1: the store refuses the calibration (here: made newer than this build
// reads while the runs went on): exit 5, the runs and the calibration kept in
// a file, and the printed command stores it.
KVM_TEST(Issue40, ACalibrateWhoseSaveFailsKeepsItsWorkAndSaysHowToStoreIt) {
    TempDir dir;
    auto db = dir.file("h.db");
    ASSERT_EQ(run_cli({"import", "kut", kut_fixture("vmexit_cpuid.log"), "--db", db}).rc, 0);
    CliOptions o = slow();
    o.wait_for = "calibrate: run 1 of 2";
    o.signal = 0;
    o.signal_when = [&](int) {
        eb::robust::sql(db, "PRAGMA user_version = 99");
        return true;
    };
    auto r = run_cli({"calibrate", "cpuid", "-n", "32", "--sessions", "2", "-r", "2", "--runs", "2", "--db", db}, o);
    EXPECT_EQ(r.rc, 5) << r.err;
    EXPECT_NE(r.err.find("the calibration is not stored: history database " + db + ": history schema version 99"),
              std::string::npos) << r.err;
    EXPECT_NE(r.out.find("NOT stored"), std::string::npos) << r.out;
    auto at = r.err.find("to save it: exitbench import calibration ");
    ASSERT_NE(at, std::string::npos) << r.err;
    std::string kept;
    for (const auto& e : fs::directory_iterator(dir.path))
        if (e.path().filename().string().starts_with("h.db.unsaved-")) kept = e.path().string();
    ASSERT_FALSE(kept.empty());
    auto doc = json::parse(slurp(kept));
    EXPECT_EQ(doc["runs"].size(), 2u);
    EXPECT_NE(doc["calibration"]["tests"].dump().find("\"test\":\"cpuid\""), std::string::npos);
    auto again = dir.file("again.db");
    auto imp = run_cli({"import", "calibration", kept, "--db", again});
    EXPECT_EQ(imp.rc, 0) << imp.err;
    EXPECT_NE(imp.out.find("stored as calibration 1 in"), std::string::npos) << imp.out;
    // A damaged kept file is refused in one line, storing nothing.
    doc["calibration"]["tests"][0]["levels"]["run_mean"]["var"] = -1;
    std::ofstream(dir.file("bad.json")) << doc.dump();
    auto bad = run_cli({"import", "calibration", dir.file("bad.json"), "--db", dir.file("bad.db")});
    EXPECT_EQ(bad.rc, 2);
    EXPECT_TRUE(one_line(bad.err)) << bad.err;
    EXPECT_NE(bad.err.find(": the run_mean variance is -1"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(dir.file("bad.db")));
}

// Row 2: kselftest's fail (1) when a configuration failed, as its case's "not ok" says.
TEST(Issue40, KtapCompareFailsWhenAConfigurationFailed) {
    TempDir dir;
    auto [a, b] = results(dir, "failed");
    auto r = run_cli({"compare", a, b, "--format", "ktap"});
    EXPECT_NE(r.out.find("not ok"), std::string::npos) << r.out;
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    auto [c, d] = results(dir);
    auto ok = run_cli({"compare", c, d, "--format", "ktap"});
    EXPECT_EQ(ok.rc, 0) << ok.out << ok.err;
}

KVM_TEST(Issue40, KtapLiveCompareFailsWhenAConfigurationFailed) {
    // A 1 ms watchdog stops B's sessions before they finish: B's cpuid fails.
    auto r = run_cli({"compare", "cpuid", "--a", "-n 32", "--b", "-n 2000000 --watchdog 1ms", "--rounds", "2",
                      "--no-save", "--format", "ktap"}, slow());
    if (r.out.find("not ok") == std::string::npos) GTEST_SKIP() << "B did not fail here: " << r.err;
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
}

// Row 3: a link another user planted in a sticky folder is not followed,
// nor their file replaced, whatever fs.protected_symlinks says.
TEST(Issue40, AnExportFollowsNoLinkPlantedInAFolderOthersCanWrite) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to plant another user's link";
    TempDir dir;
    auto sticky = dir.file("sticky");
    fs::create_directory(sticky);
    ::chmod(sticky.c_str(), 01777);
    ::chmod(dir.path.c_str(), 0755);
    auto victim = dir.file("victim.prom");
    std::ofstream(victim) << "precious\n";
    fs::create_symlink(victim, sticky + "/report.json");
    ASSERT_EQ(::lchown((sticky + "/report.json").c_str(), 65534, 65534), 0);
    std::ofstream(sticky + "/theirs.json") << "theirs\n";
    ASSERT_EQ(::chown((sticky + "/theirs.json").c_str(), 65534, 65534), 0);
    // The kernel's own protection off, and put back however the test ends.
    struct Sysctl {
        std::string saved = slurp("/proc/sys/fs/protected_symlinks");
        Sysctl() { std::ofstream("/proc/sys/fs/protected_symlinks") << "0"; }
        ~Sysctl() { std::ofstream("/proc/sys/fs/protected_symlinks") << saved; }
    };
    CliResult link, file, mine;
    {
        Sysctl off;
        auto perf = eb::test::fixtures_dir() + "/perf/report-vmexit.txt";
        link = run_cli({"import", "perf-kvm", perf, "--json", sticky + "/report.json"});
        file = run_cli({"import", "perf-kvm", perf, "--json", sticky + "/theirs.json"});
        mine = run_cli({"import", "perf-kvm", perf, "--json", sticky + "/new.json"});
    }
    EXPECT_EQ(link.rc, 2) << link.err;
    EXPECT_TRUE(one_line(link.err)) << link.err;
    EXPECT_NE(link.err.find("a symlink of another user (uid 65534)"), std::string::npos) << link.err;
    EXPECT_EQ(slurp(victim), "precious\n");
    EXPECT_TRUE(fs::is_symlink(sticky + "/report.json"));
    EXPECT_EQ(file.rc, 2) << file.err;
    EXPECT_EQ(slurp(sticky + "/theirs.json"), "theirs\n");
    EXPECT_EQ(mine.rc, 0) << mine.err;  // a new name there is ours: made through a temporary file
}

// Row 8: a replaced export keeps its mode and group; the fleet's textfile is
// 0644 under any umask, so node_exporter (its own user) reads it.
TEST(Issue40, AReplacedExportKeepsItsModeAndGroupAndATextfileStaysReadable) {
    TempDir dir;
    auto [a, b] = results(dir);
    auto csv = dir.file("out.csv");
    std::ofstream(csv) << "old\n";
    ::chmod(csv.c_str(), 0640);
    gid_t group = getegid();
    if (geteuid() == 0 && ::getgrnam("nogroup")) group = ::getgrnam("nogroup")->gr_gid;
    ASSERT_EQ(::chown(csv.c_str(), static_cast<uid_t>(-1), group), 0);
    auto r = run_cli({"compare", a, b, "--export-csv", csv});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(slurp(csv), "old\n");
    struct stat st {};
    ::stat(csv.c_str(), &st);
    EXPECT_EQ(st.st_mode & 07777, 0640u);
    EXPECT_EQ(st.st_gid, group);
    CliOptions umask077;
    umask077.wrap = {"/bin/sh", "-c", "umask 077; exec \"$0\" \"$@\""};
    auto prom = dir.file("fleet.prom"), json_out = dir.file("private.json");
    r = run_cli({"compare", a, b, "--export-openmetrics", prom, "--export-json", json_out}, umask077);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(mode_of(prom), 0644u);
    EXPECT_EQ(mode_of(json_out), 0600u);  // other exports follow the umask, as a shell redirection would
}

// Row 6: a SIGTERM'd run keeps the fleet textfile's last complete result and
// says so in exitbench_run_interrupted.
KVM_TEST(Issue40, ASigtermedRunKeepsTheTextfilesLastCompleteResult) {
    TempDir dir;
    auto prom = dir.file("node.prom");
    auto done = run_cli({"run", "cpuid", "-n", "32", "-r", "2", "--sessions", "1", "--no-save",
                         "--export-openmetrics", prom});
    ASSERT_EQ(done.rc, 0) << done.err;
    std::string complete = slurp(prom);
    EXPECT_NE(complete.find("exitbench_run_interrupted 0\n"), std::string::npos) << complete;
    CliOptions o = slow();
    o.signal = SIGTERM;
    o.signal_when = eb::robust::vm_open;
    o.freeze = true;
    auto r = run_cli({"run", "cpuid", "inl_from_kernel", "-n", "20000", "-r", "5", "--sessions", "3", "--no-save",
                      "--export-openmetrics", prom}, o);
    ASSERT_TRUE(r.mid_work);
    EXPECT_EQ(r.rc, 130) << r.err;
    std::string after = slurp(prom);
    EXPECT_NE(after.find("exitbench_run_interrupted 1\n"), std::string::npos) << after;
    EXPECT_EQ(after.find("interrupted\""), std::string::npos) << after;  // no test of the partial run
    auto cut = [](std::string s) { return s.substr(0, s.find("# HELP exitbench_run_interrupted")); };
    EXPECT_EQ(cut(after), cut(complete));
}

// Row 7: SIGKILL of calibrate leaves no orphan run and nothing in TMPDIR;
// SIGTERM stops the current run at once rather than waiting for it.
KVM_TEST(Issue40, CalibrateLeavesNoOrphanOnSigkillAndStopsPromptlyOnSigterm) {
    TempDir dir;
    fs::create_directory(dir.file("tmp"));
    const Args cal{"calibrate", "cpuid", "inl_from_kernel", "-n", "20000", "--sessions", "3", "-r", "5", "--runs", "3",
                   "--db", dir.file("h.db")};
    std::vector<int> kids;
    CliOptions o = slow();
    o.env = {"TMPDIR=" + dir.file("tmp")};
    o.signal = SIGKILL;
    o.signal_when = [&](int pid) {
        kids = children_of(pid);
        return !kids.empty() && eb::robust::vm_open(kids.front());
    };
    auto r = run_cli(cal, o);
    EXPECT_EQ(r.term_signal, SIGKILL);
    ASSERT_FALSE(kids.empty());
    for (int i = 0; i < 200 && alive(kids.front()); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(alive(kids.front())) << "calibration run " << kids.front() << " outlived calibrate";
    if (alive(kids.front())) ::kill(kids.front(), SIGKILL);
    EXPECT_TRUE(fs::is_empty(dir.file("tmp"))) << "left in TMPDIR";
    // SIGTERM: the run in progress (about 8 s of work) is stopped, not waited
    // for. The run is frozen (SIGSTOP) before calibrate gets the signal, so it
    // cannot finish on its own: calibrate passing SIGTERM on to it, seen
    // pending at the frozen run, is the proof, whatever the machine's load.
    o.signal = SIGTERM;
    std::atomic<int> frozen{0};
    std::atomic<bool> passed_on{false}, ended{false};
    o.signal_when = [&](int pid) {
        kids = children_of(pid);
        // Stopped before calibrate is signalled: a SIGTERM pending beside an
        // unhandled SIGSTOP would be taken first (the lower number).
        bool now = !kids.empty() && eb::robust::vm_open(kids.front()) && ::kill(kids.front(), SIGSTOP) == 0 &&
                   stopped(kids.front());
        if (now) frozen = kids.front();
        return now;
    };
    std::thread watch([&] {  // once the signal is pending at the frozen run, let it go on
        for (int i = 0; i < 60000 && !passed_on && !ended; ++i) {
            if (frozen && term_pending(frozen)) passed_on = true;
            else std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        if (frozen) ::kill(frozen, SIGCONT);
    });
    r = run_cli(cal, o);
    ended = true;
    watch.join();
    EXPECT_TRUE(passed_on) << "calibrate did not pass SIGTERM on to its frozen run: " << r.err;
    EXPECT_EQ(r.rc, 130) << r.err;
    EXPECT_NE(r.err.find("interrupted in calibration run 1 of 3"), std::string::npos) << r.err;
    EXPECT_FALSE(alive(kids.front()));
}

// Row 10: a failed run, calibrate or import makes none of a mistyped --db's folders.
TEST(Issue40, AFailedCommandLeavesNoFolderOfAMistypedDb) {
    TempDir dir;
    auto typo = dir.file("typo");
    auto bad_log = dir.file("bad.log");
    std::ofstream(bad_log) << "no figures here\n";
    for (const Args& a : {Args{"--device", "/dev/null", "run", "cpuid", "--db", typo + "/a/h.db"},
                          Args{"--device", "/dev/null", "calibrate", "cpuid", "--db", typo + "/a/h.db"},
                          Args{"import", "kut", bad_log, "--db", typo + "/a/h.db"}}) {
        auto r = run_cli(a);
        EXPECT_NE(r.rc, 0) << a[2];
        EXPECT_TRUE(one_line(r.err)) << r.err;
        EXPECT_FALSE(fs::exists(typo)) << a[2] << " made " << typo;
    }
    // A successful save still makes them.
    auto ok = run_cli({"import", "kut", kut_fixture("vmexit_cpuid.log"), "--db", typo + "/a/h.db"});
    EXPECT_EQ(ok.rc, 0) << ok.err;
    EXPECT_TRUE(fs::exists(typo + "/a/h.db"));
}

// Row 11: a configuration that did not run has empty figures in CSV, not 0.0.
TEST(Issue40, CompareCsvWritesNoZeroForAConfigurationThatDidNotRun) {
    TempDir dir;
    auto [a, b] = results(dir, "skipped");
    auto r = run_cli({"compare", a, b, "--format", "csv"});
    ASSERT_EQ(r.rc, 0) << r.err;
    std::istringstream lines(r.out);
    std::string header, line;
    std::getline(lines, header);
    std::vector<std::string> cols;
    for (std::stringstream h(header); std::getline(h, line, ',');) cols.push_back(line);
    auto col = std::find(cols.begin(), cols.end(), "geomean_cycles") - cols.begin();
    ASSERT_LT(size_t(col), cols.size()) << header;
    int skipped_rows = 0;
    while (std::getline(lines, line)) {
        if (line.find("skipped") == std::string::npos) continue;
        ++skipped_rows;
        std::vector<std::string> cells;
        for (std::stringstream c(line); std::getline(c, header, ',');) cells.push_back(header);
        ASSERT_GT(cells.size(), size_t(col)) << line;
        EXPECT_EQ(cells[col], "") << line;
    }
    EXPECT_EQ(skipped_rows, 1) << r.out;
}

// Row 12: "disk full" for ENOSPC; an error under --format ktap is still a
// KTAP document; the store is made 0600.
TEST(Issue40, DiskFullIsSaidAndKtapErrorsPrintAPlanAndTheStoreIs0600) {
    TempDir dir;
    auto k = run_cli({"run", "cpuid", "--repeats", "-1", "--format", "ktap"});
    EXPECT_EQ(k.rc, 1);
    EXPECT_TRUE(k.out.starts_with("KTAP version 1\n1..1\n# ")) << k.out;
    EXPECT_NE(k.out.find("--repeats"), std::string::npos) << k.out;
    EXPECT_TRUE(k.out.ends_with("not ok 1 exitbench\n")) << k.out;
    auto db = dir.file("h.db");
    ASSERT_EQ(run_cli({"import", "kut", kut_fixture("vmexit_cpuid.log"), "--db", db}).rc, 0);
    EXPECT_EQ(mode_of(db), 0600u);
    if (geteuid() != 0 || std::system("/usr/bin/unshare -m true 2>/dev/null") != 0)
        GTEST_SKIP() << "needs root to mount a small tmpfs";
    auto mnt = dir.file("mnt");
    fs::create_directory(mnt);
    CliOptions o;
    o.wrap = {"/usr/bin/unshare", "-m", "/bin/sh", "-c",
              "mount -t tmpfs -o size=512k tmpfs " + mnt + " || exit 99; \"$0\" import kut " +
                  kut_fixture("vmexit_cpuid.log") + " --db " + mnt + "/h.db >/dev/null 2>&1; dd if=/dev/zero of=" +
                  mnt + "/fill bs=1k 2>/dev/null; exec \"$0\" \"$@\""};
    auto full = run_cli({"import", "kut", kut_fixture("vmexit_ipi.log"), "--db", mnt + "/h.db"}, o);
    EXPECT_EQ(full.rc, 2) << full.err;
    EXPECT_TRUE(one_line(full.err)) << full.err;
    EXPECT_NE(full.err.find("disk full"), std::string::npos) << full.err;
    EXPECT_EQ(full.err.find("disk I/O error"), std::string::npos) << full.err;
}
