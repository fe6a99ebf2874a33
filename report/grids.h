// Each subject's figures as a Grid (grids.cpp) and the lines set around it
// (table.cpp): defined once here, laid out by CSV, markdown, text and HTML alike.
#pragma once
#include <string>
#include <vector>

#include "report/exporter.h"
#include "report/grid.h"

namespace eb::report {

Grid run_grid(const suite::RunReport& r);          // one row per test
Grid compare_grid(const Comparison& c);           // one row per test and configuration
Grid profile_grid(const profile::Report& p);       // one row per exit reason (key)
Grid merge_grid(const Merged& m);                  // one row per group of hosts and test

// What ran, where, and at which level the interval is (table.cpp's heading).
std::string run_header(const suite::RunReport& r);
// The same heading as its non-empty lines, for formats that set each apart.
std::vector<std::string> run_header_lines(const suite::RunReport& r);
// The lines that go below a table: details of skipped or failed tests,
// compare's warnings and advice, a profile's drops and degraded note.
std::vector<std::string> run_notes(const suite::RunReport& r);
std::vector<std::string> compare_notes(const Comparison& c);
std::vector<std::string> profile_lines(const profile::Report& p);
// A merge's heading: what was merged (its warnings) and each group's hosts.
std::vector<std::string> merge_lines(const Merged& m);

// --per-exit samples minus the timestamp pair's cost (the baseline's median
// per-exit sample), floored at 1 cycle; empty without samples.
std::vector<double> net_per_exit(const suite::RunReport& r, const suite::TestResult& t);

} // namespace eb::report
