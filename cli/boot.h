// `exitbench boot`: one kernel booted in QEMU, `exitbench ARGS` run inside,
// its result brought back, saved and printed (lab/boot.h). The shared
// kernel options (--kernel, --append, ...) also serve compare --kernel-a/-b
// and bisect-step (cli/kernel_ab.h).
#pragma once
#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/export.h"
#include "lab/boot.h"

namespace eb::cli {

// What a boot's machine is, as typed: numbers are checked by boot_spec().
struct MachineArgs {
    std::string initrd, modules, accel = "auto", cpus = "1", memory = "2048", timeout = "900s";
};

struct BootArgs {
    std::string kernel, append;
    std::vector<std::string> modprobe;
    MachineArgs machine;
    std::vector<std::string> args;  // exitbench's, inside (after --); with --exec, a command
    std::vector<std::string> files; // --add
    std::string db, label, note, json, format = "table";  // format: stdout's (run --emulated's --format)
    bool no_save = false, exec = false;
    ExportPaths exports;
};

void add_machine_options(CLI::App& cmd, MachineArgs& m);
CLI::App* add_boot_command(CLI::App& app, BootArgs& a);

// The lab's spec from the typed options; throws InputError.
lab::BootSpec boot_spec(const std::string& kernel, const std::string& append, const std::vector<std::string>& modprobe,
                        const MachineArgs& m, const std::vector<std::string>& args);

// `text` line by line, each through report::printable.
void print_lines(std::FILE* f, const std::string& text);

// "booted 6.1.0-57-amd64 (emulated: ...) boot id ... in 12.3 s"
std::string boot_line(const lab::BootPlan& p, const lab::BootOutcome& o);

int cmd_boot(const BootArgs& a, const std::atomic<bool>& interrupt);

} // namespace eb::cli
