#include "lab/calibrate.h"

#include <chrono>
#include <cmath>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <set>
#include <csignal>
#include <sstream>
#include <stdexcept>
#include <sys/mman.h>
#include <unistd.h>

#include "history/store.h"
#include "lab/child_run.h"
#include "lab/records.h"
#include "result/json.h"
#include "stats/nested.h"
#include "sys/error.h"
#include "sys/fd.h"
#include "sys/process.h"


namespace eb::lab {

namespace {

// Run k as a process of req.exe, its result read from its fd 3.
FinishedRun run_process(const CalibrateRequest& req, size_t k, const std::vector<std::string>& words,
                        const std::atomic<bool>& interrupt) {
    sys::Fd result = result_memfd(fmt::format("exitbench-calibration-run-{}", k));
    auto [rc, wall] = run_child(req.exe, words, result.get(), interrupt);
    if (interrupt.load() || rc == 130)
        throw Interrupted(fmt::format("interrupted in calibration run {} of {}: no calibration stored", k, req.runs));
    // 1: a test failed; its result says which, and that test is left out.
    if (rc != 0 && rc != 1)
        throw HostError(fmt::format("calibration run {} of {} ended with exit status {}; no calibration "
                                    "stored", k, req.runs, rc));
    return {read_result(result.get(), fmt::format("calibration run {}", k)), wall};
}

std::vector<suite::RunReport> run_all(const CalibrateRequest& req, const std::atomic<bool>& interrupt,
                                      const std::function<void(size_t)>& progress, const CalibrationRun& run_one,
                                      std::vector<double>& walls) {
    std::vector<suite::RunReport> runs;
    for (size_t k = 1; k <= req.runs; ++k) {
        if (interrupt.load()) throw Interrupted("interrupted: no calibration stored");
        progress(k);
        std::vector<std::string> words{"exitbench"};
        words.insert(words.end(), req.run_words.begin(), req.run_words.end());
        std::vector<std::string> own{"--sessions", std::to_string(req.sessions), "--repeats",
                                     std::to_string(req.repeats), "--json", "/proc/self/fd/3", "--no-save"};
        words.insert(words.end(), own.begin(), own.end());
        auto done = run_one ? run_one(k, words) : run_process(req, k, words, interrupt);
        runs.push_back(std::move(done.report));
        walls.push_back(done.wall_s);
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
    p.rounds = stats::plan_rounds(t.levels, target, alpha);
    return p;
}

CalibrateOutcome calibrate(const CalibrateRequest& req, const std::atomic<bool>& interrupt,
                           const std::function<void(size_t)>& progress, const CalibrationRun& run_one) {
    if (req.runs < 2) throw InputError("--runs needs 2 or more: one run has no run-to-run spread");
    history::check_save_target(req.db);  // before minutes of runs
    std::vector<double> walls;
    CalibrateOutcome out;
    out.runs = run_all(req, interrupt, progress, run_one, walls);
    const auto& runs = out.runs;
    out.calibration = suite::calibrate_from(runs, walls);
    std::set<std::string> kept;
    for (const auto& t : out.calibration.tests) kept.insert(t.test);
    for (const auto& t : runs.front().results)
        if (!kept.count(t.name))
            out.left_out.push_back(fmt::format("{}: {}{}", t.name, suite::status_name(t.status),
                                               t.detail.empty() ? "" : ": " + t.detail));
    if (out.calibration.tests.empty()) throw HostError("no test gave two usable runs; no calibration stored");
    std::vector<Record> records;
    try {
        out.calibration.id = history::save_calibration(req.db, out.calibration);
        records = lab::records(req.db, out.calibration.identity);
    } catch (const history::StoreError& e) {  // the caller keeps the runs and the calibration in a file
        out.not_saved = e.what();
    }
    for (const auto& t : out.calibration.tests)
        out.tests.push_back(plan_test(t, req.target, req.alpha, boot_level(records, t.test)));
    return out;
}

} // namespace eb::lab
