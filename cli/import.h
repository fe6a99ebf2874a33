// `exitbench import kut FILE...`: other tools' results saved as runs in the
// history, marked as imported, so `compare run:N ...` can set them against
// exitbench's own.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace eb::cli {

struct ImportArgs {
    std::string db, label, note;
    std::vector<std::string> files;
    std::vector<std::string> argv;  // the whole command line, for the runs' provenance
};

struct ImportCommands {
    CLI::App *import, *kut;
};
ImportCommands add_import_commands(CLI::App& app, ImportArgs& a);
int cmd_import(const ImportCommands& c, const ImportArgs& a);

} // namespace eb::cli
