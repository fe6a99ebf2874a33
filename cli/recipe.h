// Recipes: known experiments (the BHI mitigation's SPEC_CTRL toggle, EFER
// switching, the x2APIC IPI fastpath, exiting-guest-mode with many vCPUs) as
// data (recipes/*.json, embedded at build time), each run as a side-by-side
// comparison of its configurations.
#pragma once
#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "cli/compare.h"
#include "cli/run.h"

namespace eb::cli {

struct Recipe {
    struct Config {
        std::string label;
        std::vector<std::string> args;  // `run` options
    };
    std::string name, question, seed;
    std::vector<std::string> tests;
    std::vector<Config> configs;
};

// The embedded files: (file name, JSON text). Generated.
const std::vector<std::pair<const char*, const char*>>& recipe_files();
// Throws std::runtime_error naming the file on a malformed recipe.
Recipe parse_recipe(const std::string& text, const std::string& file);
std::vector<Recipe> recipes();

int cmd_recipe_list();
// `opts`: run and compare options from the command line, for every configuration.
int cmd_recipe_run(const std::string& device, const std::string& name, const CompareArgs& opts,
                   const std::atomic<bool>& interrupt);

} // namespace eb::cli
