// `exitbench calibrate`: parses, runs the experiment (lab/calibrate.h) and
// prints per test the level table and the least-cost counts.
#pragma once
#include <CLI/CLI.hpp>
#include <atomic>
#include <string>

#include "cli/run.h"

namespace eb::cli {

struct CalibrateArgs {
    RunArgs common;   // tests and the run options every calibration run gets
    std::string runs = "5", target = "1", alpha = "0.05", db;
};

CLI::App* add_calibrate_command(CLI::App& app, CalibrateArgs& a);
int cmd_calibrate(const std::string& device, const CalibrateArgs& a, const std::atomic<bool>& interrupt);

} // namespace eb::cli
