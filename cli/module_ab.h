// The module parameter A/B: `compare --module kvm_amd --a 'avic=0' --b
// 'avic=1' --loads N TESTS [run options]` (lab/module_ab.h does it).
#pragma once
#include <CLI/CLI.hpp>
#include <atomic>
#include <string>

#include "cli/compare.h"

namespace eb::cli {

struct ModuleAbArgs {
    std::string module, loads;
    bool active() const { return !module.empty(); }
};

void add_module_ab_options(CLI::App& compare, ModuleAbArgs& m);
int cmd_compare_module(const CompareArgs& c, const ModuleAbArgs& m, const std::atomic<bool>& interrupt);

} // namespace eb::cli
