// `exitbench kselftest-install DIR [--timeout DURATION] [-- RUN-ARGS]`: a
// kselftest collection (lab/kselftest_collection.h) in an installed
// kselftest tree.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace eb::cli {

struct KselftestInstallArgs {
    std::string dir, timeout = "900s";
    std::vector<std::string> run_args;
};

CLI::App* add_kselftest_install_command(CLI::App& app, KselftestInstallArgs& a);
int cmd_kselftest_install(const KselftestInstallArgs& a);

} // namespace eb::cli
