// `run` options, shared by `run` and by recipes' configurations.
#pragma once
#include <CLI/CLI.hpp>
#include <atomic>
#include <string>
#include <vector>

#include "cli/export.h"
#include "kvm/system.h"
#include "suite/measure_hooks.h"
#include "suite/result.h"
#include "suite/spec.h"
#include "vmm/cpuid_features.h"

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
    bool allow_invd = false;
    bool per_exit = false;
    bool profile = false;
    std::string profile_out;   // keep --profile's trace here
    std::vector<std::string> argv;  // the whole command line, for the result's provenance
    std::string db, label, note;    // run only: the history store, and what to file the run under
    bool no_save = false;
    ExportPaths exports;            // --export-FORMAT FILE, on commands that take them
};

// Three sessions of four repeats cost ~1.6x one session of ten, and give an
// interval that describes run-to-run spread (between-session CV here was
// 1.5-3x the within-session CV; README, "Statistics").
inline constexpr uint32_t kDefaultSessions = 3;
inline constexpr uint32_t kDefaultRepeats = 4;

void add_run_options(CLI::App& cmd, RunArgs& a);

// Validated settings and test selection; throws UsageError or InputError.
struct RunPlan {
    suite::RunSettings settings;                // cpuid_edits there is the text, for the report
    std::vector<vmm::CpuidEdit> cpuid_edits;    // the same, parsed once
    std::vector<const suite::TestSpec*> tests;
    bool allow_invd = false;
    std::string profile_out;
    std::vector<std::string> argv;
};
RunPlan plan_run(const RunArgs& a);

// When, where and from which command and build a run happened.
suite::Provenance capture_provenance(const std::vector<std::string>& argv);

kvm::System open_kvm(const std::string& device);

// An output file the user named must be writable before anything runs;
// throws UsageError (exit 2) with the reason.
void require_writable(const std::string& path);

// Runs a plan; `progress` prints a line per test on stderr; `hooks` (e.g.
// the host profiler) hear of the measured batches.
suite::RunReport execute(const kvm::System& sys, const RunPlan& plan, const std::atomic<bool>& interrupt,
                         bool progress, suite::MeasureHooks* hooks = nullptr);

} // namespace eb::cli
