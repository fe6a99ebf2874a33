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
    std::vector<std::string> figures;  // the seed's own figures, as it gives them
    std::vector<std::string> needs;    // preconditions (lab/recipe_check.h)
    std::vector<std::string> tests;
    std::vector<Config> configs;
    std::vector<std::string> manual;   // the seed's steps exitbench cannot run here (host kernels, boots)
};

// The largest --smp among the configurations and `common` (1 without any).
uint32_t max_smp(const Recipe& r, const std::string& common_smp);

// The embedded files: (file name, JSON text). Generated.
const std::vector<std::pair<const char*, const char*>>& recipe_files();
// Throws std::runtime_error naming the file on a malformed recipe.
Recipe parse_recipe(const std::string& text, const std::string& file);
std::vector<Recipe> recipes();

} // namespace eb::cli
