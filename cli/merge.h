// `exitbench report merge FILE...`: saved results of many hosts in one table.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace eb::cli {

struct ReportCommands {
    CLI::App *report = nullptr, *merge = nullptr;
};
ReportCommands add_report_commands(CLI::App& app, std::vector<std::string>& files);
int cmd_report_merge(const std::vector<std::string>& files);

} // namespace eb::cli
