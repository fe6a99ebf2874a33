// The robustness table's save-path rows: every command that saves to the
// history (run, calibrate, a live compare, import) under a store locked past
// the busy timeout, a full disk, a read-only folder, and all of them writing
// to one store at once. A refused save is exit 5 with the result kept in a
// file whose printed command stores it (import: exit 2, nothing half-saved);
// a read-only folder is refused before anything runs.
#include <fmt/format.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <regex>
#include <sqlite3.h>
#include <thread>
#include <unistd.h>

#include "robustness.h"

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

namespace eb::robust {

bool measuring_paths = false;

namespace {

struct SavePath {
    std::string name;
    Args args;           // without --db
    bool needs_kvm;
    int refused;         // the status of a save the store refuses
};

std::vector<SavePath> save_paths() {
    return {{"run", {"run", "cpuid", "-n", "32", "-r", "2", "--sessions", "1"}, true, 5},
            {"calibrate", {"calibrate", "cpuid", "-n", "32", "-r", "2", "--sessions", "2", "--runs", "2"}, true, 5},
            {"live compare", {"compare", "cpuid", "--a", "-n 32", "--b", "-n 64", "--rounds", "2"}, true, 5},
            {"import", {"import", "kut", kut_fixture("vmexit_ipi.log")}, false, 2}};
}

Args with_db(const SavePath& p, const std::string& db) {
    Args a = p.args;
    a.insert(a.end(), {"--db", db});
    return a;
}

// What a refused save printed to store its result later: "to save it: CMD".
std::string kept_command(const std::string& err) {
    std::smatch m;
    return std::regex_search(err, m, std::regex("to save it: (exitbench import \\S+ (\\S+) --db \\S+)"))
               ? m[2].str()
               : "";
}

// The kept file of a refused save stores into `db`; else the result is lost.
// `moved` (from, to): a folder whose kept files were copied elsewhere (a private mount that is gone).
void check_kept(Row& row, const SavePath& p, const CliResult& r, const std::string& db,
                const std::pair<std::string, std::string>& moved = {}) {
    if (p.refused != 5 || r.rc != 5) return;
    std::string file = kept_command(r.err);
    if (!moved.first.empty() && file.starts_with(moved.first + "/"))
        file = moved.second + file.substr(moved.first.size());
    auto kind = p.name == "calibrate" ? "calibration" : "run";
    auto imp = file.empty() ? CliResult{} : run_cli({"import", kind, file, "--db", db});
    if (imp.rc != 0) ++row.lost, row.why.push_back(p.name + ": the kept result does not store: " + r.err + imp.err);
    std::error_code ec;
    if (!file.empty()) fs::remove(file, ec);
}

// Every process below `pid`.
std::vector<int> descendants(int pid) {
    std::vector<int> out;
    std::ifstream f("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    for (int c; f >> c;) {
        out.push_back(c);
        for (int g : descendants(c)) out.push_back(g);
    }
    return out;
}

bool can_mount() { return geteuid() == 0 && std::system("/usr/bin/unshare -m true 2>/dev/null") == 0; }

std::vector<SavePath> usable(Row&) {
    std::vector<SavePath> out;
    for (auto& p : save_paths())
        if (p.needs_kvm == measuring_paths) out.push_back(p);
    return out;
}

} // namespace

// Every save path at once against a store another process holds locked
// past SQLite's 30 s busy timeout: each gives up, keeping what it made.
Row locked_saves_row(const std::string& dir) {
    Row row{"save paths: a locked store"};
    auto db = dir + "/locked.db";
    run_cli({"import", "kut", kut_fixture("vmexit_cpuid.log"), "--db", db});
    sqlite3* h = nullptr;
    sqlite3_open(db.c_str(), &h);
    sqlite3_exec(h, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    auto paths = usable(row);
    std::vector<std::future<CliResult>> runs;
    CliOptions o;
    o.env = {"TMPDIR=" + dir};
    for (const auto& p : paths) {
        ++row.faults;
        runs.push_back(std::async(std::launch::async, [&, p] { return run_cli(with_db(p, db), o); }));
    }
    std::vector<CliResult> results;
    for (auto& f : runs) results.push_back(f.get());
    sqlite3_exec(h, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(h);
    for (size_t i = 0; i < paths.size(); ++i) {
        tally(row, paths[i].name + " under the lock", results[i], {paths[i].refused});
        if (results[i].err.find("locked") == std::string::npos)
            ++row.wrong, row.why.push_back(paths[i].name + ": not said locked: " + results[i].err);
        check_kept(row, paths[i], results[i], db);
    }
    auto list = run_cli({"history", "list", "--db", db});
    if (list.out.find("cpuid") == std::string::npos) ++row.lost, row.why.push_back("the store's run is gone");
    return row;
}

// Fills the filesystem at `dir` (as process `pid` sees it, in its own mount
// namespace) until it has no space left.
void fill(int pid, const std::string& dir) {
    std::ofstream f("/proc/" + std::to_string(pid) + "/root" + dir + "/fill", std::ios::binary);
    std::string block(64 * 1024, '\0');
    for (int i = 0; i < 4096 && f.write(block.data(), std::streamsize(block.size())); ++i) f.flush();
}

// Each save path to a store on a tmpfs of its own that fills up while the
// command measures (once a VM of it is open): the store keeps its runs,
// "disk full" is said, and the result is kept in TMPDIR. An import, with
// nothing to measure, meets a disk full from the start.
Row full_disk_saves_row(const std::string& dir) {
    Row row{"save paths: a full disk"};
    if (!can_mount()) {
        row.skipped = "needs root to mount a tmpfs (unshare -m)";
        return row;
    }
    auto mnt = dir + "/mnt";
    fs::create_directories(mnt);
    fs::create_directories(dir + "/kept");
    for (auto p : usable(row)) {
        auto db = mnt + "/h.db";
        CliOptions o;
        o.env = {"TMPDIR=" + dir};
        o.timeout_s = 300;
        bool mid_run = p.needs_kvm;
        if (mid_run) {
            std::replace(p.args.begin(), p.args.end(), std::string("32"), std::string("5000"));
            o.signal = 0;
            o.signal_when = [&](int pid) {
                for (int c : descendants(pid))
                    if (vm_open(c)) return fill(c, mnt), true;
                return false;
            };
        }
        o.wrap = {"/usr/bin/unshare", "-m", "/bin/sh", "-c",
                  "mount -t tmpfs -o size=512k tmpfs " + mnt + " || exit 99; \"$0\" import kut " +
                      kut_fixture("vmexit_cpuid.log") + " --db " + db + " >/dev/null 2>&1; " +
                      (mid_run ? "" : "dd if=/dev/zero of=" + mnt + "/fill bs=1k 2>/dev/null; ") +
                      "\"$0\" \"$@\"; rc=$?; rm -f " + mnt + "/fill; cp " + mnt + "/h.db.unsaved-* " + dir +
                      "/kept/ 2>/dev/null; \"$0\" history list --db " + db + " > " + dir + "/list.txt 2>&1; exit $rc"};
        ++row.faults;
        auto r = run_cli(with_db(p, db), o);
        tally(row, p.name + (mid_run ? ", the disk filled while it measured" : " on a full disk"), r, {p.refused});
        if (r.err.find("disk full") == std::string::npos)
            ++row.wrong, row.why.push_back(p.name + ": not said disk full: " + r.err);
        if (slurp(dir + "/list.txt").find("cpuid") == std::string::npos)
            ++row.lost, row.why.push_back(p.name + ": the store's run is gone: " + slurp(dir + "/list.txt"));
        // The tmpfs goes with its mount namespace: what was kept there was copied out first.
        check_kept(row, p, r, dir + "/elsewhere.db", {mnt, dir + "/kept"});
    }
    return row;
}

// A store in a read-only folder (a read-only mount: root writes past modes)
// is refused before anything runs, in one line.
Row read_only_saves_row(const std::string& dir) {
    Row row{"save paths: a read-only folder"};
    if (!can_mount()) {
        row.skipped = "needs root to mount a tmpfs (unshare -m)";
        return row;
    }
    auto mnt = dir + "/ro";
    fs::create_directories(mnt);
    for (const auto& p : usable(row))
        for (bool existing : {false, true}) {
            auto db = mnt + "/h.db";
            std::string pre = existing ? "\"$0\" import kut " + kut_fixture("vmexit_cpuid.log") + " --db " + db +
                                             " >/dev/null 2>&1; "
                                       : "";
            CliOptions o;
            o.wrap = {"/usr/bin/unshare", "-m", "/bin/sh", "-c",
                      "mount -t tmpfs tmpfs " + mnt + " || exit 99; " + pre + "mount -o remount,ro " + mnt +
                          " || exit 99; exec \"$0\" \"$@\""};
            ++row.faults;
            auto r = run_cli(with_db(p, db), o);
            tally(row, p.name + (existing ? " to a store" : " to a new store") + " in a read-only folder", r, {2});
            if (r.err.find("Read-only file system") == std::string::npos)
                ++row.wrong, row.why.push_back(p.name + ": not said read-only: " + r.err);
        }
    return row;
}

// Two of every save path into one store at once: each says what it saved,
// and the store holds every one of them.
Row concurrent_saves_row(const std::string& dir) {
    Row row{"save paths: concurrent writers"};
    auto db = dir + "/shared.db";
    auto paths = usable(row);
    std::vector<std::future<std::pair<SavePath, CliResult>>> runs;
    CliOptions o;
    o.timeout_s = 300;
    for (int k = 0; k < 2; ++k)
        for (const auto& p : paths)
            runs.push_back(std::async(std::launch::async, [&, p] { return std::pair{p, run_cli(with_db(p, db), o)}; }));
    int runs_said = 0, calibrations_said = 0;
    for (auto& f : runs) {
        auto [p, r] = f.get();
        tally(row, p.name + " beside the others", r, {0});
        row.concurrent += r.rc == 0;
        std::regex said(p.name == "import" ? "as run \\d+" : "saved as run \\d+");
        std::string text = r.out + r.err;
        for (std::sregex_iterator it(text.begin(), text.end(), said), end; it != end; ++it) ++runs_said;
        if (p.name == "calibrate" && r.out.find("stored in " + db) != std::string::npos) ++calibrations_said;
    }
    auto list = run_cli({"history", "list", "--db", db});
    int held = int(std::count(list.out.begin(), list.out.end(), '\n')) - 1;
    if (held != runs_said) ++row.lost, row.why.push_back(fmt::format("{} runs said saved, {} held", runs_said, held));
    sqlite3* h = nullptr;
    sqlite3_stmt* s = nullptr;
    sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
    int cals = -1;
    if (sqlite3_prepare_v2(h, "SELECT count(*) FROM calibrations", -1, &s, nullptr) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        cals = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(h);
    if (measuring_paths && cals != calibrations_said)
        ++row.lost, row.why.push_back(fmt::format("{} calibrations said stored, {} held", calibrations_said, cals));
    row.note += fmt::format("{} runs and {} calibrations saved side by side", runs_said, calibrations_said);
    return row;
}

} // namespace eb::robust
