// `exitbench compare`: configurations interleaved in one invocation, or two
// saved results.
#pragma once
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "cli/run.h"

namespace eb::cli {

struct CompareArgs {
    RunArgs common;                    // run options for every configuration; tests or files
    std::optional<std::string> a, b;   // --a/--b: run options as one string each ("" is the defaults)
    std::vector<std::string> configs;  // --config LABEL=OPTIONS
    std::vector<std::pair<std::string, std::string>> preset;  // (label, options) from a recipe
    std::string rounds, time_budget, precision = "1", fail_if_slower, alpha = "0.05", seed;
};

void add_compare_options(CLI::App& cmd, CompareArgs& a);
int cmd_compare(const std::string& device, const CompareArgs& a, const std::atomic<bool>& interrupt);

// Splits an option string as a shell would for plain words and quotes.
std::vector<std::string> split_args(const std::string& s);

} // namespace eb::cli
