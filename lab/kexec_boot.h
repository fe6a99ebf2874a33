// `compare --backend kexec`, the host side of each boot: the plan checked
// and made (lab/kexec_plan.h), kexec-tools loading the next kernel and
// executing it, and the run in the boot that came up.
#pragma once
#include <string>
#include <vector>

#include "lab/kexec_plan.h"

namespace eb::lab {

struct KexecSpec {
    std::string kernel[2], append[2];
    std::vector<std::string> modprobe[2];  // "kvm_amd avic=1": given on the command line as kvm_amd.avic=1
    std::string initrd;                    // both sides'; empty: each image's initrd.img-RELEASE beside it
    unsigned boots = 0;                    // a side
    std::vector<std::string> run_args;     // `run TESTS OPTIONS`
    std::string label, note, db, json, unit_dir = "/etc/systemd/system";
    std::optional<double> fail_pct;
    double alpha = 0.05;
    std::string exitbench = "/proc/self/exe";
    std::string proc_cmdline = "/proc/cmdline";  // the base command line of both sides
};

// Checks before anything is written, in this order: each kernel a bzImage
// and its initrd (InputError), then kexec-tools installed, root, and no plan
// already running next to the store (HostError).
KexecPlan plan_kexec(const KexecSpec& spec);

// This boot's id and command line.
std::string this_boot_id();
std::string this_cmdline();

// Loads the kernel of p.slot with `kexec -l` and executes it (`systemctl
// kexec` where systemd runs, else `kexec -e`), the state saved first with
// the boot id it leaves from. Returns only when the kexec did not happen:
// HostError saying why (the plan stays, for --status, --resume, --abort).
// Under systemd it returns once the kexec is queued.
void kexec_next(KexecPlan& p, const std::string& state_path);

// The run of this boot (`exitbench run ... --json FILE --no-save`, a child
// process): `result` is its JSON in `dir`, or `failure` says why not.
KexecBoot measure_boot(const KexecPlan& p, const std::string& dir);

} // namespace eb::lab
