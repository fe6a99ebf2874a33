// The run options: one row each. The parser of every command that takes
// them, a saved compare's refusals, the words a calibration passes to its
// child runs, the help placeholders and the completion all come from this
// table (tests/unit/run_options_test.cpp walks every row through them).
#pragma once
#include <CLI/CLI.hpp>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace eb::cli {

struct RunArgs;

// Where a row is honoured. A command registers the rows of its scope; a
// saved compare refuses every row, since saved results keep their settings.
enum Scope : unsigned {
    kRun = 1,        // `run`
    kLive = 2,       // a configuration of a live compare or a recipe (one session a round)
    kCalibrate = 4,  // `calibrate`, and so passed on to its child runs
    // Where the whole command runs, not what it measures: the command acts on
    // it before anything starts (--emulated); never in a plan or a result.
    kWhere = 8,
};

struct RunOption {
    const char* flags;        // CLI11's names: "-n,--iterations"
    const char* name;         // the long name: "--iterations"
    std::variant<std::string RunArgs::*, bool RunArgs::*, std::vector<std::string> RunArgs::*> field;
    const char* placeholder;  // the value's word in --help and completion ("" for a flag)
    unsigned scopes;
    const char* example;      // a valid value (ignored for flags): the table's test plans with it
    const char* not_live;     // why a live configuration refuses it, or nullptr
    std::string help;
};

std::span<const RunOption> run_options_table();
const RunOption* find_run_option(const std::string& long_name);  // "--iterations" or "iterations"

// Whether the row is set in `a` (a value given, a flag on, a list not empty).
bool given(const RunOption& o, const RunArgs& a);

// The rows given in `a` as words for another `exitbench run` ("--name=value"),
// restricted to `scope`.
std::vector<std::string> run_words(const RunArgs& a, unsigned scope);

// Every row given in `a` outside `scope`: its long name, for a refusal.
std::vector<const RunOption*> given_outside(const RunArgs& a, unsigned scope);

} // namespace eb::cli
