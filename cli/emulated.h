// --emulated: the command runs in a boot of an installed kernel under QEMU
// TCG with an SVM CPU (a real kvm_amd inside), for a host without a usable
// /dev/kvm or for the kvm_amd code path on a kvm_pvm host (lab/emulated.h).
// `run` comes back as if it ran here (its tables, exports, history and exit
// status, labelled emulated); compare, recipe run and list bring back their
// stdout, stderr, exit status and --json.
#pragma once
#include <atomic>
#include <string>
#include <vector>

#include "cli/run.h"

namespace eb::cli {

// The words from `command` on (`recipe run` from "recipe"), less what the
// host keeps for itself: --emulated, --kernel, --device, --json, --db,
// --no-save, --label, --note, every --export-FORMAT and, with `drop_format`,
// --format (run's host renders it).
std::vector<std::string> guest_words(const std::vector<std::string>& argv, const std::string& command,
                                     bool drop_format);

// run --emulated.
int run_emulated(const RunArgs& a, const std::atomic<bool>& interrupt);

// compare, recipe run or list --emulated: `command`'s words run inside; its
// stdout (noted emulated for a table), stderr and exit status come back, and
// its --json, when `json` names where to write it. `saves`: the command
// saves by default (it gets --no-save inside: the guest's store is gone
// with it).
struct Relay {
    std::string command, kernel, json, format = "table";
    bool saves = false, exports = false;
};
int relay_emulated(const std::vector<std::string>& argv, const Relay& r, const std::atomic<bool>& interrupt);
// Whether any --export-FORMAT was given a file.
bool any_export(const ExportPaths& e);

} // namespace eb::cli
