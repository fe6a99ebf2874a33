// `exitbench calibrate`, the use case: the dimensioning experiment run as K
// separate processes of this binary (each `run` with S sessions of R
// repeats), reduced per test (suite::calibrate_from), stored in the history,
// and set beside the earlier calibrations and runs of this host, kernel and
// settings that came from other boots. The command line parses and prints.
#pragma once
#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "stats/calibration.h"
#include "suite/calibration.h"

namespace eb::lab {

struct CalibrateRequest {
    std::string exe = "/proc/self/exe";   // the binary each run re-executes
    std::vector<std::string> run_words;   // "run" and its tests and options, without --sessions/--repeats/--json
    size_t runs = 5, sessions = 3, repeats = 4;
    std::string db;                       // the history database (already resolved)
    double target = 0.01, alpha = 0.05;   // the allocation's detectable difference
};

// The between-boot spread of one test from everything on record.
struct BootLevel {
    size_t boots = 0, runs = 0;   // distinct boot ids, runs among them
    double boot_sd = 0;           // NaN below two boots
    double run_sd = 0;            // runs within a boot, pooled over the boots
};

struct TestPlan {
    suite::TestCalibration cal;
    stats::Allocation allocation;  // least-cost counts a side for the target
    stats::RoundsPlan rounds;      // interleaved rounds (compare --a/--b) for the target
    BootLevel boots;
};

struct CalibrateOutcome {
    suite::Calibration calibration;  // as stored (id set; 0 when not_saved)
    std::vector<suite::RunReport> runs;  // the experiment's
    std::string not_saved;              // why the store refused it; empty when stored
    std::vector<TestPlan> tests;
    std::vector<std::string> left_out;  // tests without two usable runs, with why
};

// Ctrl-C during the experiment: nothing is stored.
struct Interrupted : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One run of the experiment, finished: its result and its process's wall seconds.
struct FinishedRun {
    suite::RunReport report;
    double wall_s = 0;
};
// Runs run k (from 1) of `words` (argv, "exitbench" first); throws
// Interrupted when stopped, HostError when the run cannot start or fails.
using CalibrationRun = std::function<FinishedRun(size_t k, const std::vector<std::string>& words)>;

// Runs the experiment; `progress(k)` is told before run k (1-based) starts.
// Each run is a process of req.exe, or `run_one` when given (a fake in unit
// tests). Throws HostError when a run cannot be started or fails. A
// calibration the store refuses (locked, full, read-only) comes back with
// `not_saved` saying why, its runs and its plans (boots unknown).
CalibrateOutcome calibrate(const CalibrateRequest& req, const std::atomic<bool>& interrupt,
                           const std::function<void(size_t)>& progress, const CalibrationRun& run_one = {});

// The plan for one test from a calibration and what the history holds.
TestPlan plan_test(const suite::TestCalibration& t, double target, double alpha, const BootLevel& boots);

} // namespace eb::lab
