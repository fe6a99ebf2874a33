// `exitbench compare`: configurations run live in interleaved rounds, or saved
// results with one or more files a side (A1.json [A2.json ...] --vs B1.json ...).
#pragma once
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "cli/run.h"
#include "lab/vocabulary.h"
#include "report/gate_view.h"

namespace eb::cli {

struct CompareArgs {
    RunArgs common;                    // run options for every configuration; tests, or side A's files
    std::vector<std::string> vs;       // --vs: side B's files
    std::optional<std::string> a, b;   // --a/--b: run options as one string each ("" is the defaults)
    std::vector<std::string> configs;  // --config LABEL=OPTIONS
    std::vector<std::pair<std::string, std::vector<std::string>>> preset;  // (label, run options) from a recipe
    std::string db, against;           // history: --db, --against last
    std::string rounds, time_budget, precision, fail_if_slower, alpha = "0.05", seed;
    std::string target;                // saved: the detectable difference, in %, a calibration's plan is for
    std::string host_profile;          // --host-profile[=HZ] (cli/compare_host_profile.h)
    // recipe run: its unmet preconditions; with those, or with a knob the
    // guest did not read back, the report answers "not answerable" instead.
    std::optional<std::vector<std::string>> recipe_unmet;
};

void add_compare_options(CLI::App& cmd, CompareArgs& a);
// --no-save, --label and --note of a compare that runs configurations.
void add_save_options(CLI::App& cmd, CompareArgs& a);
int cmd_compare(const std::string& device, const CompareArgs& a, const std::atomic<bool>& interrupt);

// A saved compare cannot honour run options or a live schedule: the first one
// given is refused (UsageError), since saved results keep their settings.
void reject_run_options(const CompareArgs& a);

// --fail-if-slower's decision (report::gate_view): the slower tests on
// stderr, then kTestFailed (a regression), kNotTestable or kOk.
int apply_gate(const report::GateView& g);

// Splits an option string as a shell would for plain words and quotes.
std::vector<std::string> split_args(const std::string& s);

// One configuration's run options (already split into words), parsed as
// `run` would; throws UsageError naming the configuration.
lab::RunPlan plan_config(const std::string& label, const std::vector<std::string>& words, const RunArgs& common);

} // namespace eb::cli
