// `exitbench profile`: the perf kvm stat job (record, report, compare).
#pragma once
#include <CLI/CLI.hpp>
#include <atomic>
#include <map>
#include <string>
#include <vector>

namespace eb::cli {

struct ProfileArgs {
    std::vector<int> pids;
    bool all = false;
    std::string duration, out = "exitbench.trace", input = "exitbench.trace", event = "vmexit", vcpu,
                sort = "sample", json, buffer_kb = "16384";
    bool perf_only = false;
    bool once = false, csv = false;        // live: -1 / --csv as kvm_stat
    std::string interval, than;            // live: -d seconds, --than microseconds
    std::vector<std::string> files;  // compare OLD NEW, or OLD... with --vs NEW...
    std::vector<std::string> vs;     // compare --vs
    std::string perf_data;           // import
    std::vector<std::string> command;  // record -- COMMAND ARGS
    std::string format = "table";      // report, compare: stdout format
    std::map<std::string, std::string> exports;  // report, compare: --export-FORMAT FILE
    std::string db, alpha = "0.05";    // compare of saved host profiles: --db, --alpha
};

// Adds `profile` with record/report/compare/live/cleanup; returns the subcommands.
struct ProfileCommands {
    CLI::App *profile, *record, *report, *compare, *live, *cleanup, *import;
};
ProfileCommands add_profile_commands(CLI::App& app, ProfileArgs& a);
int cmd_profile(const ProfileCommands& c, const ProfileArgs& a, const std::atomic<bool>& interrupt);

} // namespace eb::cli
