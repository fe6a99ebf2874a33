// `run`, the use case: a validated plan (tests and settings) run in fresh
// VMs, with --profile's host-side attribution and the trace verification of
// the exits the stats fd cannot count. The command line builds the plan from
// its arguments (cli/run.h) and prints the result.
#pragma once
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "kvm/system.h"
#include "suite/measure_hooks.h"
#include "suite/result.h"
#include "suite/spec.h"
#include "suite/test_machine.h"
#include "sys/error.h"
#include "vmm/cpuid_features.h"

namespace eb::lab {

// KVM cannot be used on this host at all: kselftest's "skip".
struct NoKvm : HostError {
    using HostError::HostError;
};

// What to run, already checked.
struct RunPlan {
    suite::RunSettings settings;                // cpuid_edits there is the text, for the report
    std::vector<vmm::CpuidEdit> cpuid_edits;    // the same, parsed once
    std::vector<const suite::TestSpec*> tests;
    bool allow_invd = false;
    std::string profile_out;                    // keep --profile's trace here, or empty
    std::vector<std::string> argv;              // the command line, for the provenance
};

// When, where and from which command and build a run happened.
suite::Provenance capture_provenance(const std::vector<std::string>& argv);
// Now in UTC, by a strftime format ("%Y-%m-%dT%H:%M:%SZ", "%Y%m%dT%H%M%SZ").
std::string utc_now(const char* format);

// An output file the user named must be writable before anything runs:
// InputError (their argument, exit 2) with the reason.
void require_writable(const std::string& path);

// /dev/kvm (or `device`), checked to run exitbench; throws NoKvm with why not.
kvm::System open_kvm(const std::string& device);

// Told as each test starts and ends (a progress display); either may be empty.
struct RunObserver {
    std::function<void(const std::string& test)> starting;
    std::function<void(const suite::TestResult&)> done;
};

// Where a plan's tests run: what the host offers (KVM's CPUID before the
// plan's edits, its TSC rate) and the machines each test gets a fresh one of.
struct RunTarget {
    suite::HostContext ctx;
    const suite::MachineFactory& machines;
    int64_t started_ns = 0;  // monotonic, when probing the host began (0: at execute's start)
};

// Runs a plan to its report; `interrupt` stops it between tests (the report
// then says interrupted, and keeps the tests that finished); `hooks` (the
// host profiler) hear of the measured batches. Throws HostError when
// --profile cannot record.
suite::RunReport execute(const RunTarget& target, const RunPlan& plan, const std::atomic<bool>& interrupt,
                         const RunObserver& observer = {}, suite::MeasureHooks* hooks = nullptr);
// The same on this host's KVM, with the embedded guest image.
suite::RunReport execute(const kvm::System& sys, const RunPlan& plan, const std::atomic<bool>& interrupt,
                         const RunObserver& observer = {}, suite::MeasureHooks* hooks = nullptr);

} // namespace eb::lab
