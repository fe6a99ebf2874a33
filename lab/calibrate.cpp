#include "lab/calibrate.h"

#include <chrono>
#include <cmath>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <set>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>

#include "history/store.h"
#include "lab/records.h"
#include "result/json.h"
#include "stats/nested.h"
#include "sys/error.h"

extern char** environ;

namespace eb::lab {

namespace fs = std::filesystem;

namespace {

// A private directory under TMPDIR for the runs' JSON, removed on every exit path.
struct TempDir {
    fs::path path;
    TempDir() {
        std::error_code ec;
        fs::path base = fs::temp_directory_path(ec);
        if (ec) base = "/tmp";
        std::string tmpl = (base / "exitbench-calibrate-XXXXXX").string();
        if (!::mkdtemp(tmpl.data()))
            throw HostError(fmt::format("cannot make a directory in {}: {}", base.string(), std::strerror(errno)));
        path = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// Runs `argv` with stdout on /dev/null (the table is not wanted; stderr
// stays the user's); returns its exit status and wall seconds.
std::pair<int, double> run_child(const std::string& exe, const std::vector<std::string>& words) {
    std::vector<char*> argv;
    std::vector<std::string> copy = words;
    for (auto& w : copy) argv.push_back(w.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    auto t0 = std::chrono::steady_clock::now();
    int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) throw HostError(fmt::format("cannot start {}: {}", exe, std::strerror(rc)));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) throw HostError(fmt::format("waiting for a calibration run: {}", std::strerror(errno)));
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), wall};
}

suite::RunReport read_run(const fs::path& p) {
    std::ifstream f(p);
    if (!f) throw HostError(fmt::format("a calibration run wrote no result ({})", p.string()));
    return result::from_json(result::parse_document(f, p.string()));
}

std::vector<suite::RunReport> run_all(const CalibrateRequest& req, const std::atomic<bool>& interrupt,
                                      const std::function<void(size_t)>& progress, std::vector<double>& walls) {
    TempDir dir;
    std::vector<suite::RunReport> runs;
    for (size_t k = 1; k <= req.runs; ++k) {
        if (interrupt.load()) throw Interrupted("interrupted: no calibration stored");
        progress(k);
        auto json = dir.path / fmt::format("run-{}.json", k);
        std::vector<std::string> words{"exitbench"};
        words.insert(words.end(), req.run_words.begin(), req.run_words.end());
        std::vector<std::string> own{"--sessions", std::to_string(req.sessions), "--repeats",
                                     std::to_string(req.repeats), "--json", json.string(), "--no-save"};
        words.insert(words.end(), own.begin(), own.end());
        auto [rc, wall] = run_child(req.exe, words);
        if (interrupt.load() || rc == 130)
            throw Interrupted(fmt::format("interrupted in calibration run {} of {}: no calibration stored", k, req.runs));
        // 1: a test failed; its result says which, and that test is left out.
        if (rc != 0 && rc != 1)
            throw HostError(fmt::format("calibration run {} of {} ended with exit status {}; no calibration "
                                                 "stored", k, req.runs, rc));
        runs.push_back(read_run(json));
        walls.push_back(wall);
    }
    return runs;
}

// Boots > runs > session log medians of one test, from every record.
BootLevel boot_level(const std::vector<Record>& records, const std::string& test) {
    std::map<std::string, std::vector<std::vector<double>>> by_boot;
    for (const auto& r : records)
        if (auto it = r.session_logs.find(test); it != r.session_logs.end() && !it->second.empty())
            by_boot[r.boot_id].push_back(it->second);
    BootLevel b;
    stats::Nest root;
    for (const auto& [boot, runs] : by_boot) {
        stats::Nest n;
        for (const auto& s : runs) n.children.push_back({s, {}});
        b.runs += runs.size();
        root.children.push_back(std::move(n));
    }
    b.boots = by_boot.size();
    auto sd = stats::nested_sd(root);  // [sessions, runs, boots]
    sd.resize(3, std::nan(""));
    b.run_sd = sd[1];
    b.boot_sd = b.boots >= 2 ? sd[2] : std::nan("");
    return b;
}

} // namespace

TestPlan plan_test(const suite::TestCalibration& t, double target, double alpha, const BootLevel& boots) {
    TestPlan p;
    p.cal = t;
    p.boots = boots;
    p.allocation = stats::allocate(t.levels, t.costs, target, alpha);
    // One run a side, as `run` would make it with the calibration's sessions.
    stats::SideShape one{1, t.levels.inv_sessions};
    auto tt = stats::calibrated_t(0, t.levels, one, one, alpha);
    p.one_run_detectable = std::exp(stats::detectable_difference(tt, alpha)) - 1;
    return p;
}

CalibrateOutcome calibrate(const CalibrateRequest& req, const std::atomic<bool>& interrupt,
                           const std::function<void(size_t)>& progress) {
    if (req.runs < 2) throw InputError("--runs needs 2 or more: one run has no run-to-run spread");
    history::check_save_target(req.db);  // before minutes of runs
    std::vector<double> walls;
    auto runs = run_all(req, interrupt, progress, walls);
    CalibrateOutcome out;
    out.calibration = suite::calibrate_from(runs, walls);
    std::set<std::string> kept;
    for (const auto& t : out.calibration.tests) kept.insert(t.test);
    for (const auto& t : runs.front().results)
        if (!kept.count(t.name))
            out.left_out.push_back(fmt::format("{}: {}{}", t.name, suite::status_name(t.status),
                                               t.detail.empty() ? "" : ": " + t.detail));
    if (out.calibration.tests.empty()) throw HostError("no test gave two usable runs; no calibration stored");
    {
        history::Store store(req.db, history::Store::Mode::ReadWrite);
        out.calibration.id = store.save_calibration(out.calibration);
    }
    auto records = lab::records(req.db, out.calibration.identity);
    for (const auto& t : out.calibration.tests)
        out.tests.push_back(plan_test(t, req.target, req.alpha, boot_level(records, t.test)));
    return out;
}

} // namespace eb::lab
