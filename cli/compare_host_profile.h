// compare --host-profile[=HZ] (and recipe run) on the command line: the flag,
// and printing what the use case (lab/compare_host_profiler.h) found: the
// per-function tables, and the differential flame graphs in the HTML export.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lab/compare_host_profiler.h"
#include "report/exporter.h"

namespace eb::cli {

void add_compare_host_profile_option(CLI::App& cmd, std::string& hz);

// Throws UsageError for a bad HZ, HostError (exit 3) when this process may not sample here.
std::unique_ptr<lab::CompareHostProfiler> start_compare_host_profiler(const std::string& hz);

// Every configuration against the first, and the notes.
std::string compare_host_tables(const lab::CompareHostProfiler& host, const std::vector<std::string>& labels,
                                double tsc_mhz, double alpha);

// Writes the --export-html files with the differential flame graphs and
// takes them out of `exports`; false when one could not be written.
bool write_compare_html(std::vector<std::pair<std::string, std::string>>& exports,
                        const lab::CompareHostProfiler& host, const report::Comparison& doc,
                        const std::vector<std::string>& labels, double tsc_mhz);

} // namespace eb::cli
