// A calibration: the dimensioning experiment's runs reduced, per test, to the
// variance each level adds and what each level costs; what it must match to
// stand in for the run-to-run spread of other runs. Pure: `exitbench
// calibrate` (lab/) runs the experiment and stores this; compare uses it.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "stats/calibration.h"
#include "suite/result.h"

namespace eb::suite {

struct TestCalibration {
    std::string test;
    stats::LevelTable levels;
    stats::Costs costs;
    std::vector<std::vector<double>> session_logs;  // per run: its sessions' log medians (boot-level estimates)
};

// Where and with what a calibration ran: it plans other runs only when
// these agree.
struct CalibrationIdentity {
    std::string hostname, kernel_release, backend, cpu_model;
    std::string settings;  // settings_key()
};

struct Calibration {
    int64_t id = 0;                 // in the history; 0 before it is stored
    std::string timestamp_utc, boot_id, tool_version;
    CalibrationIdentity identity;
    size_t runs = 0, sessions = 0, repeats = 0;  // as asked
    std::vector<TestCalibration> tests;
};

// The settings that change what a run measures, as one line: the batch
// (fixed or the adaptive time goal), warm-up, vCPUs and placement, APIC mode,
// guest MSRs, EFER and CPUID edits, the baseline, --per-exit and --profile.
// Sessions, repeats, the order seed and the watchdog are left out: compare
// takes the sessions' own share from the runs it compares.
std::string settings_key(const RunSettings& s);
CalibrationIdentity identity_of(const RunReport& r);
// The run options that reproduce these settings (what settings_key holds,
// with the sessions and repeats), e.g. "-n 200 --sessions 2 -r 3".
std::string run_options(const RunSettings& s);

// Every field that differs, as "kernel.release: 'a' vs 'b'"; empty: they match.
std::vector<std::string> mismatches(const CalibrationIdentity& cal, const CalibrationIdentity& run);

// The experiment's runs (each a separate process) reduced per test; a test
// needs two or more runs with usable sessions. `process_s[k]` is run k's
// whole wall time: what is not inside a test's sessions is the run's start.
Calibration calibrate_from(const std::vector<RunReport>& runs, const std::vector<double>& process_s);

// Why a stored test calibration cannot be used (a variance negative or not
// finite, a df negative or not finite, no run-to-run df, fewer than two runs,
// a share of sessions outside (0, 1]), as "the run_mean variance is -1";
// empty when it can. A store may be edited or damaged: checked on every read.
std::string invalid_reason(const TestCalibration& t);

// Why `c` cannot plan runs like `r`; empty when it can: the same host,
// kernel, backend, CPU and settings (mismatches()). Its boot, sessions and
// repeats may differ: a plan names its own, and says the calibration's boot.
std::vector<std::string> why_not_plan(const Calibration& c, const RunReport& r);

// What compare takes from a calibration, per test, to plan (never to test):
// its levels and costs, and what it describes.
struct CalibratedSpread {
    stats::LevelTable levels;
    stats::Costs costs;
    CalibrationIdentity identity;
    std::string date, boot_id;  // the calibration's timestamp and boot
    size_t runs = 0, sessions = 0, repeats = 0;
    int64_t id = 0;
    double age_s = -1;          // how old it is, set by whoever knows the clock (lab); < 0: unknown
    bool same_boot = false;     // made in the boot of the compared runs
};
using Calibrations = std::map<std::string, CalibratedSpread>;

// Every test of `c`, as compare borrows it.
Calibrations lend(const Calibration& c);

} // namespace eb::suite
