// `run` options, shared by `run` and by recipes' configurations.
#pragma once
#include <CLI/CLI.hpp>
#include <atomic>
#include <string>
#include <vector>

#include "cli/export.h"
#include "cli/host_profile.h"
#include "cli/run_options.h"
#include "lab/run.h"

namespace eb::cli {

struct RunArgs {
    std::vector<std::string> tests;
    std::string iterations, repeats, time_goal, watchdog, json, format = "table", smp, pin, apic = "auto";
    std::string cpu, guest_efer, cpuid;
    std::string sessions, seed;   // --sessions N; --seed of the per-session test order (run only)
    std::string warmup;           // --warmup N, as hyperfine's
    std::vector<std::string> guest_msrs;
    bool no_baseline = false;
    bool no_trace_verify = false;
    bool retry_hung = false;      // --retry-hung: rerun a hung test in later sessions
    bool allow_invd = false;
    bool per_exit = false;
    bool profile = false;
    std::string profile_out;   // keep --profile's trace here
    bool emulated = false;     // --emulated (cli/emulated.h)
    std::string kernel;        // --kernel IMAGE, with --emulated
    std::vector<std::string> argv;  // the whole command line, for the result's provenance
    std::string db, label, note;    // run only: the history store, and what to file the run under
    bool no_save = false;
    ExportPaths exports;            // --export-FORMAT FILE, on commands that take them
};

// Three sessions of four repeats cost ~1.6x one session of ten, and give an
// interval that describes run-to-run spread (between-session CV here was
// 1.5-3x the within-session CV; docs/statistics.md).
inline constexpr uint32_t kDefaultSessions = 3;
inline constexpr uint32_t kDefaultRepeats = 4;

// The rows of cli/run_options.h whose scope meets `scopes` (kWhere rows only
// when `scopes` holds kWhere), the test names, and with `outputs` --json and
// --format.
void add_run_options(CLI::App& cmd, RunArgs& a, unsigned scopes = kRun, bool outputs = true);

// Validated settings and test selection; throws UsageError or InputError.
lab::RunPlan plan_run(const RunArgs& a);

// An output file the user named must be writable before anything runs.
using lab::require_writable;

// `exitbench run`: plans, runs (lab::execute) with a progress line per test
// on a terminal, then writes the exports, saves to the history and prints.
// `hpa`: --host-profile and its folded stacks.
int cmd_run(const std::string& device, const RunArgs& a, const HostProfileArgs& hpa,
            const std::atomic<bool>& interrupt);

} // namespace eb::cli
