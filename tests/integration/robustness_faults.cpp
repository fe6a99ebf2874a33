// The robustness table's fault rows: stop signals and SIGKILL at each phase
// that needs no KVM, a full disk on a tmpfs of the test's own, and the KVM
// phases (skipped, saying so, without /dev/kvm).
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <unistd.h>

#include "robustness.h"
#include "tests/paths.h"

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

namespace eb::robust {

namespace {

std::set<int> ids_in(const std::string& text, const std::regex& re) {
    std::set<int> ids;
    for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) ids.insert(std::stoi((*it)[1]));
    return ids;
}

// Runs said saved ("as run N") that the store does not hold; -1 if it does not read.
int lost_runs(const std::string& said, const std::string& db) {
    auto list = run_cli({"history", "list", "--db", db});
    if (list.rc != 0) return fs::exists(db) ? -1 : int(ids_in(said, std::regex(" as run (\\d+) ")).size());
    auto held = ids_in(list.out, std::regex("\\n +(\\d+)  "));
    int lost = 0;
    for (int id : ids_in(said, std::regex(" as run (\\d+) "))) lost += !held.count(id);
    return lost;
}

// A signal once exitbench has installed its handlers (and, if given, once
// `also` holds), sent while the process is frozen (SIGSTOP) so that it
// provably arrives before the command has finished.
CliOptions signal_at(int sig, std::function<bool()> also = {}) {
    CliOptions o;
    o.signal = sig;
    o.signal_when = [sig, also](int pid) { return catches(pid, sig == SIGKILL ? SIGTERM : sig) && (!also || also()); };
    o.freeze = true;
    o.timeout_s = 300;
    return o;
}

// A signal probe that must land mid-work: tried again (at most 5 times) when
// the command ended before it could be frozen; a probe that never lands is
// counted wrong, so no row passes on signals that tested nothing.
CliResult probe(Row& row, const std::string& what, const Args& args, const CliOptions& o,
                const std::function<void()>& before = {}) {
    CliResult r;
    for (int attempt = 0; attempt < 5; ++attempt) {
        if (before) before();
        r = run_cli(args, o);
        if (r.mid_work) break;
    }
    ++row.faults;
    if (!r.mid_work) ++row.wrong, row.why.push_back(what + ": ended before the signal, 5 times");
    return r;
}

} // namespace

bool vm_open(int pid) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
        auto t = fs::read_symlink(e.path(), ec);
        if (!ec && t.string() == "anon_inode:kvm-vm") return true;
    }
    return false;
}

Row signals_row(const std::string& dir) {
    Row row{"signals (import, history, export)"};
    int outcome[3] = {};  // finished first (0), stopped (130), killed (SIGKILL)
    auto logs = dir + "/many";
    fs::create_directories(logs);
    Args files;
    for (int i = 0; i < 40; ++i)
        files.push_back(write_file(logs, std::to_string(i) + ".txt", "cpuid " + std::to_string(1000 + i) + "\n"));
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGKILL}) {
        for (bool saving : {false, true}) {
            auto db = dir + "/sig" + std::to_string(sig) + (saving ? "s" : "r") + ".db";
            Args args{"import", "kut", "--db", db};
            args.insert(args.end(), files.begin(), files.end());
            auto what = "import, signal " + std::to_string(sig);
            auto r = probe(row, what, args,
                           signal_at(sig, saving ? std::function<bool()>([db] { return fs::exists(db); })
                                                 : std::function<bool()>()),
                           [db] { std::error_code ec; for (auto s : {"", "-wal", "-shm"}) fs::remove(db + s, ec); });
            ++outcome[r.term_signal ? 2 : r.rc == 130 ? 1 : 0];
            tally(row, what, r, {0, 130}, sig);
            int lost = lost_runs(r.out, db);
            if (lost != 0) row.lost += std::max(lost, 1), row.why.push_back(db + ": " + std::to_string(lost) + " lost");
        }
    }
    auto db = dir + "/sig-read.db";
    Args all{"import", "kut", "--db", db};
    all.insert(all.end(), files.begin(), files.end());
    run_cli(all);
    auto json = write_file(dir, "one.json", run_cli({"history", "export", "3", "--json", "--db", db}).out);
    auto json2 = write_file(dir, "two.json", run_cli({"history", "export", "4", "--json", "--db", db}).out);
    auto trace = eb::test::fixtures_dir() + "/profile/nested-svm-cpuid-msr-io.trace";
    for (int sig : {SIGINT, SIGTERM, SIGKILL})
        for (const Args& a : {Args{"history", "list", "--db", db}, Args{"history", "show", "2", "--db", db},
                              Args{"history", "export", "1", "--json", "--db", db},
                              Args{"history", "trend", "cpuid", "--db", db},
                              Args{"import", "run", json, "--db", db}, Args{"report", "merge", json, json2},
                              Args{"profile", "report", "-i", trace, "--export-json", dir + "/p.json"},
                              Args{"import", "perf-kvm", perf_fixture("report-vmexit.txt"), "--json", dir + "/q.json"}}) {
            auto what = a[0] + " " + a[1] + ", signal " + std::to_string(sig);
            auto r = probe(row, what, a, signal_at(sig));
            ++outcome[r.term_signal ? 2 : r.rc == 130 ? 1 : 0];
            tally(row, what, r, {0, 130}, sig);  // a command that polls may finish what it does
        }
    int lost = lost_runs(run_cli({"history", "list", "--db", db}).out, db);
    if (lost != 0) row.lost += std::max(lost, 1), row.why.push_back("the read store lost runs");
    row.note = std::to_string(outcome[1]) + " stopped (130), " + std::to_string(outcome[2]) + " killed, " +
               std::to_string(outcome[0]) + " done first; every signal sent mid-work (frozen first)";
    return row;
}

Row full_disk_row(const std::string& dir) {
    Row row{"full disk (a tmpfs of its own)"};
    if (geteuid() != 0 || std::system("/usr/bin/unshare -m true 2>/dev/null") != 0) {
        row.skipped = "needs root to mount a tmpfs (unshare -m)";
        return row;
    }
    auto mnt = dir + "/mnt";
    fs::create_directories(mnt);
    // The shell mounts, optionally fills the tmpfs after a first import, runs
    // exitbench ("$0" "$@"), and writes what is left (and what reads) outside it.
    enum Pre { kNothing, kFill, kImportThenFill };
    auto wrapped = [&](const std::string& size, Pre before, const Args& args) {
        std::string db = mnt + "/h.db";
        std::string pre = before == kImportThenFill ? "\"$0\" import kut " + kut_fixture("vmexit_cpuid.log") + " --db " +
                                                          db + " >/dev/null 2>&1; "
                                                    : "";
        if (before != kNothing) pre += "dd if=/dev/zero of=" + mnt + "/fill bs=1k 2>/dev/null; ";
        CliOptions o;
        o.wrap = {"/usr/bin/unshare", "-m", "/bin/sh", "-c",
                  "mount -t tmpfs -o size=" + size + " tmpfs " + mnt + " || exit 99; " + pre +
                      "\"$0\" \"$@\"; rc=$?; rm -f " + mnt + "/fill; ls -A " + mnt + " > " + dir + "/left.txt; \"$0\" " +
                      "history list --db " + db + " > " + dir + "/list.txt 2>&1; exit $rc"};
        ++row.faults;
        return run_cli(args, o);
    };
    auto db = mnt + "/h.db";
    auto r = wrapped("4k", kNothing, {"import", "kut", kut_fixture("vmexit_ipi.log"), "--db", db});
    tally(row, "first save, disk full", r, {2});
    if (slurp(dir + "/left.txt") != "") ++row.wrong, row.why.push_back("left on a full disk: " + slurp(dir + "/left.txt"));
    r = wrapped("512k", kImportThenFill, {"import", "kut", kut_fixture("vmexit_ipi.log"), "--db", db});
    tally(row, "save to a store on a full disk", r, {2});
    if (slurp(dir + "/list.txt").find("cpuid") == std::string::npos)
        ++row.lost, row.why.push_back("the store's run is gone: " + slurp(dir + "/list.txt"));
    r = wrapped("64k", kFill, {"import", "perf-kvm", perf_fixture("report-vmexit.txt"), "--json", mnt + "/x.json"});
    tally(row, "an export to a full disk", r, {3});
    if (slurp(dir + "/left.txt") != "") ++row.wrong, row.why.push_back("a partial export left: " + slurp(dir + "/left.txt"));
    return row;
}

Row kvm_row(const std::string& dir) {
    Row row{"runs under KVM (signals, a save)"};  // a KVM_TEST: skipped before this without /dev/kvm
    Args run{"run", "cpuid", "-n", "64", "-r", "3", "--sessions", "1", "--db", dir + "/kvm.db"};
    // Mid-work: once the run has a VM open (its first session), not merely started.
    Args slow{"run", "cpuid", "inl_from_kernel", "-n", "20000", "-r", "5", "--sessions", "3", "--db", dir + "/kvm.db"};
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        auto o = signal_at(sig);
        o.signal_when = [](int pid) { return vm_open(pid); };
        auto r = probe(row, "run, signal " + std::to_string(sig), slow, o);
        tally(row, "run, signal " + std::to_string(sig), r, {130}, sig);
    }
    auto r = run_cli(run);
    tally(row, "run", r, {0});
    int lost = lost_runs(r.err, dir + "/kvm.db");  // "saved as run N" is on stderr
    if (lost) row.lost += std::max(lost, 1);
    return row;
}

} // namespace eb::robust
