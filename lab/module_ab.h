// The module parameter A/B: `compare --module kvm_amd --a 'avic=0' --b
// 'avic=1' --loads N TESTS`. Each side's parameters are put in effect in the
// order A B B A ..., and one run (a child process of this binary) measures
// each. Parameters the kernel takes only at load time make every slot a
// fresh load (rmmod, then modprobe with that side's parameters), and the
// load is the unit (suite::Unit::Load, 3 loads a side for a verdict); when
// every parameter named is writable at run time (/sys/module/M/parameters),
// they are written instead, all runs share one load, and the run is the
// unit. The module and its parameters are restored at the end, on an error
// and on Ctrl-C; another user of the module is a refusal that changes
// nothing. The host and the runs come through seams, so the whole path runs
// in unit tests without /dev/kvm.
#pragma once
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lab/module_host.h"
#include "suite/compare.h"
#include "suite/result.h"

namespace eb::lab {

struct ModuleAbSpec {
    std::string module;                  // kvm, kvm_amd or kvm_intel
    std::string sides[2];                // each side's "PARAM=V ...", as --a and --b give them
    unsigned slots = 3;                  // loads (or runs) a side
    std::vector<std::string> run_words;  // "run", the tests and run options: each slot's child
    std::string exe = "/proc/self/exe";
};

// "avic=0 npt=1": NAME=VALUE words; InputError naming the bad one.
ModuleParams parse_module_params(const std::string& words, const std::string& option);

// One slot's run: its exit status and, when it finished, its result.
struct SlotRun {
    int status = -1;
    std::optional<suite::RunReport> report;
};
// Runs `words` (argv, "exitbench" first) once; `interrupt` is passed on.
using SlotRunner = std::function<SlotRun(const std::vector<std::string>& words)>;
// The real one: a child of spec.exe, its result read from its fd 3.
SlotRunner child_runner(const std::string& exe, const std::atomic<bool>& interrupt);

struct ModuleAbObserver {
    std::function<void(const std::string&)> note;  // progress and restore lines
};

struct ModuleAbOutcome {
    bool reload = true;                        // false: the parameters were written at run time
    std::vector<suite::RunReport> sides[2];    // each finished slot's run, load recorded
    std::optional<suite::ComparisonReport> cmp;  // nullopt: a side has no finished run
    std::string why_not;                       // then, why
    std::string failure;                       // a slot that could not load or run: why (it stopped there)
    bool interrupted = false;
    std::vector<std::string> restored;         // what the restore said; the last line is its verdict
    bool restore_ok = true;                    // the module is back with the parameters it had
    ModuleParams before, after;                // the module's parameters before and after the A/B
};

// Refusals before anything changes, each one line (InputError: the module
// is not loaded, built in, or in use; a parameter it lacks; the sides the
// same; HostError: a tool missing). A value the module refuses or does not
// read back is found by putting each side in effect once before measuring
// (InputError, after the restore). A slot that fails later stops the A/B
// there: `failure` says why, and what finished is compared.
ModuleAbOutcome run_module_ab(const ModuleAbSpec& spec, ModuleHost& host, const SlotRunner& run,
                              const std::vector<std::string>& labels, double alpha, const std::atomic<bool>& interrupt,
                              const ModuleAbObserver& obs = {});

// True while a module A/B has the module changed: a second Ctrl-C then
// waits for the restore instead of ending the process.
bool module_change_active();

} // namespace eb::lab
