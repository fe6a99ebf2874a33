// Output formats on the command line: --format for stdout, and hyperfine's
// --export-FORMAT FILE, several at once, on run, compare and profile report.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "report/exporter.h"

namespace eb::cli {

// Format name -> file; an empty file means not asked for.
using ExportPaths = std::map<std::string, std::string>;

// One --export-NAME option per format of the registry that applies to `s`.
// FILE '-' is stdout: that export then replaces the --format output, so
// `format` (the command's --format) becomes its name once `cmd` is parsed;
// a command without one (nullptr) refuses '-'. Two '-' or a clashing
// --format are usage errors, as CLI11's own (CLI::ValidationError).
void add_export_options(CLI::App& cmd, ExportPaths& paths, report::Subject s, std::string* format);
// --format NAME for stdout; its help lists the formats that apply to `s`, then `more`.
void add_format_option(CLI::App& cmd, std::string& format, report::Subject s, const std::string& more = "");

// What to write: (format, file) pairs. `json_alias` is --json FILE. Throws
// UsageError (exit 2) when a format does not apply, two exports share a file,
// or a file cannot be written: all before anything runs.
std::vector<std::pair<std::string, std::string>> plan_exports(const ExportPaths& paths, const std::string& json_alias,
                                                              report::Subject s);

// The stdout exporter for --format NAME; an unknown name gets a did-you-mean.
std::unique_ptr<report::Exporter> stdout_exporter(const std::string& name, report::Subject s);

// Writes every export atomically; a failure is said on stderr and the rest
// are still written. False if any failed.
template <class Subject>
bool write_exports(const std::vector<std::pair<std::string, std::string>>& plan, const Subject& result);
bool write_export(const std::string& format, const std::string& path, const std::function<std::string()>& render);

// A run's --export-openmetrics file is a fleet's textfile: node_exporter
// serves whatever it holds until the next run. An interrupted run does not
// replace the last complete result there: the file keeps its samples and
// gains exitbench_run_interrupted 1 (a complete run writes 0). Taken out of
// `plan` and written here; false if a write failed.
bool write_run_textfiles(std::vector<std::pair<std::string, std::string>>& plan, const std::function<std::string()>& render,
                         bool interrupted);

template <class Subject>
bool write_exports(const std::vector<std::pair<std::string, std::string>>& plan, const Subject& result) {
    bool ok = true;
    for (const auto& [format, path] : plan)
        ok &= write_export(format, path, [&, f = format] { return report::make_exporter(f)->render(result); });
    return ok;
}

} // namespace eb::cli
