// `exitbench report merge FILE|run:N|label:L ...`: saved results of many
// hosts in one view, through the exporters like every other command.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/export.h"

namespace eb::cli {

struct MergeArgs {
    std::vector<std::string> inputs;  // files and history references
    std::string db, format = "table";
    ExportPaths exports;
};

struct ReportCommands {
    CLI::App *report = nullptr, *merge = nullptr;
};
ReportCommands add_report_commands(CLI::App& app, MergeArgs& a);
int cmd_report_merge(const MergeArgs& a);

} // namespace eb::cli
