// `exitbench import kut FILE...`: other tools' results saved as runs in the
// history, marked as imported; `import run FILE...`: exitbench result files
// (e.g. one a failed save kept), so `compare run:N ...` can set them against
// exitbench's own; `import calibration FILE`: what a calibrate whose save
// failed kept.
#pragma once
#include <CLI/CLI.hpp>
#include <atomic>
#include <string>
#include <vector>

namespace eb::cli {

struct ImportArgs {
    std::string db, label, note;
    std::string json;  // perf-kvm: write the parsed tables here
    std::vector<std::string> files;
    bool one_run = false, per_file = false;  // kut: how files make runs (see import_kut.h)
    std::vector<std::string> argv;  // the whole command line, for the runs' provenance
};

struct ImportCommands {
    CLI::App *import, *kut, *run, *perf_kvm, *calibration;
};
ImportCommands add_import_commands(CLI::App& app, ImportArgs& a);
// kut and run: a stop request (SIGINT, SIGTERM, SIGHUP) ends the import
// between two saves: exit 130, the runs saved listed, the rest named.
int cmd_import(const ImportCommands& c, const ImportArgs& a, const std::atomic<bool>& stop);

} // namespace eb::cli
