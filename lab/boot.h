// `exitbench boot`, the use case: one kernel image booted in QEMU with an
// initramfs exitbench assembles (lab/initramfs.h), KVM loaded inside with
// the given parameters, `exitbench ARGS` run there, and its result brought
// back over virtio-serial with the guest kernel's facts (suite::BootRecord).
#pragma once
#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lab/initramfs.h"
#include "suite/result.h"
#include "sys/process.h"

namespace eb::lab {

struct BootSpec {
    std::string kernel, append, initrd, modules_dir;
    std::vector<std::string> modprobe;  // "kvm_amd nested=1", one module each
    std::string accel = "auto";         // auto, kvm or tcg
    unsigned cpus = 1, memory_mb = 2048;
    double timeout_s = 900;             // per boot, QEMU's whole run
    std::vector<std::string> args;      // exitbench's, inside; none: `run`
    std::string exitbench = "/proc/self/exe";
    // --add: files and folders copied in at their own paths (a program with
    // the libraries it links); --exec: `args` is a command of its own, run
    // in place of exitbench, its output and exit status brought back.
    std::vector<std::string> files = {};
    bool exec = false;
    // args is an exitbench command that writes its JSON to kGuestResult
    // itself (--emulated's compare): the file comes back as it is.
    bool raw_result = false;
};

// A spec checked and resolved, before anything boots.
struct BootPlan {
    BootSpec spec;
    std::string release, qemu;
    GuestModules modules;
    std::map<std::string, std::string> params;
    bool hardware = false;        // -accel kvm -cpu host; else TCG with an SVM CPU model
    std::string accel_why;        // how --accel auto chose, for the user
    std::vector<std::string> guest_args;
    bool want_result = false;     // the guest runs `exitbench run`: its JSON comes back
    std::string execution() const { return hardware ? "hardware" : "emulated"; }
    std::string machine() const;
};

// Throws InputError for bad input (a missing or non-bzImage kernel, no KVM
// modules for its release, a bad --modprobe) and HostError when the host
// cannot boot it (no qemu-system-x86_64, --accel kvm without /dev/kvm).
BootPlan plan_boot(const BootSpec& spec);

struct BootOutcome {
    std::string failure;         // empty when the guest ran exitbench to its end; else why not, one line
    bool interrupted = false;
    std::optional<suite::RunReport> report;  // the run's, with `boot` set (want_result only)
    std::string out, err;        // exitbench's stdout and stderr inside
    std::string result_json;     // BootSpec::raw_result: the guest's kGuestResult, as written
    int guest_rc = -1;
    double seconds = 0;
    std::string boot_id;         // the guest's, once it got that far
    bool ok() const { return failure.empty() && !interrupted; }
};

// One plan's initramfs, built once, booted as often as asked.
class Booter {
public:
    explicit Booter(BootPlan plan);
    // Boots once; `interrupt` kills QEMU. Never throws for what the guest did.
    BootOutcome boot(const std::atomic<bool>& interrupt);
    const BootPlan& plan() const { return plan_; }

private:
    BootPlan plan_;
    sys::ScratchDir dir_;
    std::string kernel_, initrd_;
};

} // namespace eb::lab
