// Host-kernel A/B with the boot as the unit: `compare --kernel-a IMAGE
// --kernel-b IMAGE --boots N TESTS` (lab/kernel_ab.h boots them in turn), and
// `bisect-step`, its one-sided form for `git bisect run`.
#pragma once
#include <CLI/CLI.hpp>
#include <atomic>
#include <string>
#include <vector>

#include "cli/boot.h"
#include "cli/run.h"
#include "cli/compare.h"
#include "cli/emit.h"
#include "lab/kernel_ab.h"

namespace eb::cli {

struct KernelAbArgs {
    std::string kernel_a, kernel_b, append_a, append_b, boots, guest_run;
    std::vector<std::string> modprobe_a, modprobe_b;
    MachineArgs machine;
    std::string backend = "qemu", unit_dir = "/etc/systemd/system";  // --backend kexec (cli/kernel_kexec.h)
    bool status = false, abort = false, resume = false;
    bool kexec() const { return backend == "kexec" || status || abort || resume; }
    bool active() const { return !kernel_a.empty() || !kernel_b.empty() || kexec(); }
};

// Adds --kernel-a/-b, --append-a/-b, --modprobe-a/-b, --boots, --guest-run
// and the machine options to `compare`.
void add_kernel_ab_options(CLI::App& compare, KernelAbArgs& k);
int cmd_compare_kernels(const CompareArgs& c, const KernelAbArgs& k, const std::atomic<bool>& interrupt);

// The end of a host-kernel A/B, both backends: --fail-if-slower's gate
// decided first (doc.gate set, its lines said), then the outputs and the
// saves, and the status by compare_exit's precedence. `base` non-empty: the
// saved labels are said.
int conclude_boots(report::Comparison& doc, const Outputs& out, const std::string& db, const std::vector<ToSave>& saves,
                   std::optional<double> fail_pct, bool interrupted, const std::string& base);

// Shared with the kexec backend (cli/kernel_kexec.cpp).
std::vector<std::string> guest_run_args(const std::vector<std::string>& tests, const std::string& guest_run,
                                        const std::vector<std::string>& run_opts = {});
// A compare with no live or saved-mode option of its own; UsageError.
void reject_other_modes(const CompareArgs& c);
// A live compare's schedule (--rounds, --time-budget, --precision, --seed,
// --host-profile, --profile-out) in a compare whose `unit` (a boot, a load)
// holds one run each: UsageError naming the first given.
void reject_schedule(const CompareArgs& c, const std::string& mode, const std::string& unit);

struct BisectArgs {
    std::string good, kernel, append, boots = "3", fail_if_slower = "0", alpha = "0.05", guest_run, db, label;
    std::vector<std::string> modprobe;
    RunArgs run;  // the tests and run options, as compare --kernel-a/-b takes them
    MachineArgs machine;
    bool no_save = false;
};


CLI::App* add_bisect_command(CLI::App& app, BisectArgs& a);
int cmd_bisect_step(const BisectArgs& a, const std::atomic<bool>& interrupt);

} // namespace eb::cli
