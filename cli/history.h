// `exitbench history`: the saved runs (history/store.h), and how `run` and
// `compare` reach them.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "lab/saved_runs.h"
#include "lab/vocabulary.h"

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

// The saved-run use cases (lab/saved_runs.h), as the commands name them.
using lab::against_last;
using lab::db_path;
using lab::expand_ref;
using lab::is_history_ref;
using lab::keep_unsaved_calibration;
using lab::load_result;
using lab::load_saved_run;
using lab::require_saveable;
// lab::save_run, and "saved as run N" on stderr unless --quiet.
bool save_run(const std::string& db, const lab::RunReport& r, const std::string& label, const std::string& note);

} // namespace eb::cli
