// `exitbench history`: the saved runs (history/store.h), and how `run` and
// `compare` reach them.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "suite/calibration.h"
#include "suite/result.h"

namespace eb::cli {

struct HistoryArgs {
    std::string db;                      // --db; empty: the default path
    std::string label, test, since, host;
    std::string id;                      // show, export, rm
    std::string trend_html;              // trend --export-html FILE
    bool json = false, yes = false;
};

struct HistoryCommands {
    CLI::App *history, *list, *show, *export_run, *rm, *trend;
};
HistoryCommands add_history_commands(CLI::App& app, HistoryArgs& a);
int cmd_history(const HistoryCommands& c, const HistoryArgs& a);

// --db as given, or the default path.
std::string db_path(const std::string& db);

// Before a run: UsageError unless a save to --db could succeed.
void require_saveable(const std::string& db);
// Saves a finished run. On failure it says why, keeps the result as a JSON
// file beside the store (else in TMPDIR), prints the command that imports
// it, and returns false: the caller exits kNotSaved.
bool save_run(const std::string& db, const suite::RunReport& r, const std::string& label, const std::string& note);

// A calibration the store refused (`why`): said on stderr, kept with its runs
// as a JSON file beside the store (else in TMPDIR), and the `import
// calibration` command that stores it printed. False if no file could be kept.
bool keep_unsaved_calibration(const std::string& db, const std::string& why, const suite::Calibration& c,
                              const std::vector<suite::RunReport>& runs);

// compare's history references: "label:L" (every run under L) and "run:N".
bool is_history_ref(const std::string& s);
// A reference's runs as "run:N" names, oldest first; throws UsageError with a
// did-you-mean for an unknown label or id.
std::vector<std::string> expand_ref(const std::string& db, const std::string& ref);
// compare --against last: {earlier run, newest run}.
std::vector<std::vector<std::string>> against_last(const std::string& db);
// One saved run's result, by its "run:N" name.
suite::RunReport load_saved_run(const std::string& db, const std::string& ref);
// A result file, or a saved run by its "run:N" name; UsageError names the
// file and what is wrong with it.
suite::RunReport load_result(const std::string& path, const std::string& db);

} // namespace eb::cli
