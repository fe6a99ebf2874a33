// What a run produces; the report layer renders it, JSON round-trips it.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profile/host_profile.h"
#include "stats/inference.h"
#include "suite/knobs.h"
#include "vmm/exit_times.h"
#include "vmm/host.h"

namespace eb::suite {

enum class Status {
    Ok,           // ran; exits verified as expected
    Unverified,   // ran; the host's counters cannot confirm the exits
    NoExit,       // ran; verified that no exit happened (allowed for this test)
    Mismatch,     // ran; verified exits contradict the expectation
    Failed,       // guest exception, failed check, or unexpected exit
    Hung,         // stopped by the watchdog
    Skipped,      // a requirement is missing
    Error,        // host-side failure
    Interrupted,  // Ctrl-C
};
const char* status_name(Status s);
std::optional<Status> status_from_name(const std::string& s);
bool is_failure(Status s);

struct ExitCheck {
    std::string kind;                // exit_kind_name of the expectation
    double expected = 0;             // per iteration
    double expected_max = 0;         // > expected: the upper end of a range
    std::optional<double> measured;  // per iteration; nullopt = unverified
    std::string source;              // the counter it came from
    std::string note;                // why unverified, or why zero is fine
};

struct RunSettings {
    std::optional<uint64_t> iterations;  // fixed batch size; adaptive when unset
    uint32_t repeats = 10;               // measured batches per session
    uint32_t warmup = 0;                 // --warmup: more discarded batches after the adaptive warm-up
    uint32_t sessions = 1;               // fresh-VM executions of every test (--sessions)
    uint64_t order_seed = 0;             // shuffles the test order of each session when sessions > 1
    double time_goal_s = 0.02;           // adaptive: grow the batch until it takes this long
    std::optional<int> cpu;              // host CPU for vCPU 0 (--cpu)
    uint32_t smp = 1;                    // vCPUs, at least each test's minimum
    std::vector<int> pin;                // host CPU per vCPU (--pin)
    bool pin_auto = false;               // --pin auto: one host CPU per vCPU, round robin
    std::string apic = "auto";           // auto (x2APIC when offered, as KUT), xapic, x2apic
    std::vector<MsrKnob> guest_msrs;     // --guest-msr, written by the guest before the loop
    EferKnob guest_efer;                 // --guest-efer
    std::string cpuid_edits;             // --cpuid, as given
    double watchdog_s = 3.0;             // no guest progress for this long = hung
    bool baseline = true;
    bool per_exit = false;               // time every iteration on its own (vCPU 0)
    bool profile = false;                // record kvm tracepoints during the run (--profile)
    bool trace_verify = true;            // verify through kvm tracepoints what the stats fd cannot (not saved)
    bool retry_hung = false;             // --retry-hung: rerun in later sessions a test that hung
};

// --profile: the host-side view of a test's exits, from kvm_exit -> kvm_entry.
struct HostProfile {
    std::string reason;          // the most frequent exit reason in the test's window
    uint64_t count = 0;
    double per_iter = 0;         // of all iterations the guest ran, warm-up included
    double mean_ns = 0, p50_ns = 0, p99_ns = 0;
    std::string note;            // why there is no latency, when there is none
    // The harness's own exits in the window (ucall port I/O at batch
    // boundaries), left out of the figures above.
    uint64_t harness_exits = 0;
    double harness_mean_ns = 0;  // 0 when they were not timed
};

// A userspace exit's cost split in two: the VMM's time (host TSC from
// KVM_RUN's return to the next KVM_RUN, the device handler included) and the
// rest, the kernel and hardware round trip. Cycles.
struct UserspaceSplit {
    uint64_t exits = 0;               // timed, every vCPU, measured batches
    double vmm_p50 = 0, vmm_p99 = 0, vmm_mean = 0;
    double exit_cycles = 0;           // the test's cost per userspace exit, minus the baseline when it ran
    double kernel_cycles = 0;         // exit_cycles - vmm_mean
};
// The VMM's raw times behind a split, summed over sessions; not saved.
struct UserTimes {
    vmm::ExitTimeTotals totals;
    uint64_t iterations = 0;          // every vCPU's, measured batches
};
// nullopt without timed exits or a headline.
std::optional<UserspaceSplit> userspace_split(const UserTimes& u, double cycles_per_iter,
                                              std::optional<double> baseline);

// What the guest read back after the knobs were applied (vCPU 0).
struct GuestStateSeen {
    std::optional<uint64_t> efer;
    std::map<std::string, uint64_t> msrs;   // knob name -> value read back
    std::map<std::string, bool> cpuid;      // edited feature -> bit the guest sees
};

// One execution of a test in a fresh VM: the repeats it measured. Repeats of
// one session share its VM, placement and host state, so they are not
// independent of each other; sessions are.
struct SessionSamples {
    std::vector<double> samples;   // TSC cycles per iteration, one per repeat
    uint64_t iterations = 0;       // this session's batch size
    // The size came from an earlier session of the test and its first batch,
    // discarded, still took the time goal: no doubling from 64 again.
    bool batch_reused = false;
};

// Where wall time went, CLOCK_MONOTONIC ns from clock reads at each phase's
// edges: a test's (summed over its sessions) or a whole run's.
struct WallSplit {
    int64_t measured = 0;      // batches whose results count
    int64_t warmup = 0;        // discarded batches: the doubling, the one reaching the goal, --warmup, set aside
    int64_t vm_start = 0;      // making the VM, to the guest's first ucall
    int64_t teardown = 0;      // the session's end, to the VM gone
    int64_t watchdog = 0;      // hangs: from the last progress to the watchdog stopping the guest
    int64_t trace_verify = 0;  // a run's trace verification batches (run level only)
    int64_t setup = 0;         // a run's host probe and environment capture, before its first test (run level only)
    int64_t other = 0;         // the rest: ucalls between batches, set-up, between tests
    int64_t total = 0;
    WallSplit& operator+=(const WallSplit& o);
    // The named phases, all but `other` and `total`.
    int64_t named() const { return measured + warmup + vm_start + teardown + watchdog + trace_verify + setup; }
};

struct TestResult {
    std::string name;
    Status status = Status::Error;
    std::string detail = {};             // skip reason, failure, registers
    uint64_t iterations = 0;             // per batch (the first session's)
    uint32_t vcpus = 1;
    std::optional<double> irqs_per_iter = {};       // interrupts handled, all vCPUs
    std::vector<double> ipi_latency_cycles = {};    // per batch: sender ICR write -> target handler
    std::vector<SessionSamples> sessions = {};  // those that measured something, in run order
    ExitCheck exits = {};
    std::map<std::string, double> kvm_stats_per_iter = {};
    std::vector<std::string> host_checks = {};  // host-side checks that ran, e.g. eventfd counts
    GuestStateSeen guest_state = {};
    std::vector<std::string> warnings = {};     // e.g. a knob the guest does not read back
    // --per-exit: each measured iteration's own TSC delta, timestamp overhead included.
    std::vector<double> per_exit_cycles = {};
    std::optional<HostProfile> host_profile = {};
    // run --host-profile: the host's sampled call chains over the test's
    // measured batches, and what they cost (profile/host_profile.h).
    std::optional<profile::TestHostProfile> host_samples = {};
    std::optional<UserTimes> user_times = {};        // measured here; gone in results read back
    std::optional<UserspaceSplit> userspace_split = {};
    std::vector<std::pair<int64_t, int64_t>> batch_windows = {};  // CLOCK_MONOTONIC, measured batches; not saved
    int64_t start_ns = 0, end_ns = 0;           // CLOCK_MONOTONIC window of the test
    uint64_t all_iterations = 0;                // every batch, warm-up included
    double wall_seconds = 0;
    WallSplit wall = {};                        // measured here; not saved per test
    // A hang is learnt once per run: the session it hung in (from 1; 0: none
    // skipped) and how many later sessions did not rerun it (--retry-hung does).
    uint32_t hung_in_session = 0;
    uint32_t sessions_not_rerun = 0;
};

// One of several files imported as one run (the logs of one kvm-unit-tests
// run_tests.sh invocation).
struct ImportedLog {
    std::string file;                // as named when imported
    std::string sha256;              // of its bytes
    std::vector<std::string> tests;  // the tests it holds, in file order
};

// A result read from another tool's output (exitbench import), not measured here.
struct ImportSource {
    std::string source;  // the tool, e.g. "kvm-unit-tests"
    std::string file;    // as named when imported; of several logs, their directory
    std::string sha256;  // of the file's bytes; of several logs, of their sha256sum lines
    std::vector<ImportedLog> logs = {};  // several files made this run: each of them; else empty
};

// One load of a KVM module, as a module A/B made it: `id` tells this load
// from every other (a random UUID taken at the load), `params` are the
// module's parameters as /sys/module showed them once it was loaded.
struct ModuleLoad {
    std::string module;  // kvm, kvm_amd or kvm_intel
    std::string id;
    std::vector<std::pair<std::string, std::string>> params;  // "avic" -> "N"
};

// Where and when a run happened, so saved results can be told apart later.
// Empty in results read from schema versions 1 and 2, which lacked it.
struct Provenance {
    std::string timestamp_utc;       // ISO 8601, e.g. 2026-12-01T07:00:00Z
    std::string hostname;
    std::vector<std::string> argv;   // the command line, as given
    std::string git_describe;        // of the source tree it was built from; empty if not from git
    std::string boot_id;             // /proc/sys/kernel/random/boot_id: tells boots apart
    // Set on an imported run: then timestamp and argv are the import's, and
    // host, boot and environment are unknown (empty).
    std::optional<ImportSource> imported = {};
    // Set on a run of a module A/B (lab/module_ab.h): the module load it ran
    // in, so loads are told apart as boots are; empty otherwise.
    std::optional<ModuleLoad> module_load = {};
};

// The kernel a run was booted into by `exitbench boot` (lab/boot.h): what
// that boot was, and how its exits were executed.
struct BootRecord {
    std::string image;        // the kernel image booted, as given
    std::string release;      // uname -r inside
    std::string cmdline;      // /proc/cmdline inside
    std::string boot_id;      // /proc/sys/kernel/random/boot_id inside
    std::string execution;    // "hardware" (KVM nested on the host's CPU) or "emulated" (QEMU TCG)
    std::string machine;      // QEMU's -accel and -cpu, e.g. "tcg -cpu EPYC,+svm,+npt"
    std::vector<std::pair<std::string, std::string>> module_params;  // "kvm_amd.nested" -> "1"
};
// Every output of an emulated boot's run says this.
inline constexpr const char* kEmulatedNote = "emulated: shape only, not hardware cost";

struct RunReport {
    int schema_version = 0;               // of the file it was read from; 0 when measured here
    std::string tool_version;
    Provenance provenance;
    vmm::HostFacts host;
    std::vector<std::pair<std::string, std::string>> env;  // env::capture()
    RunSettings settings;
    std::vector<TestResult> results;
    bool interrupted = false;
    // The run's wall time by phase; measured by `run`, absent in files from
    // before it was recorded and in imported runs.
    std::optional<WallSplit> wall_time = {};
    std::optional<BootRecord> boot = {};  // set when `exitbench boot` booted a kernel for this run
};

// How a run's exits were executed, for every output to say: "emulated" (a
// boot under QEMU TCG), "hardware" (a boot under KVM -cpu host) or "host"
// (this host's own /dev/kvm).
inline std::string execution_of(const RunReport& r) {
    return r.boot && !r.boot->execution.empty() ? r.boot->execution : "host";
}
// "kvm_amd nested under QEMU TCG, emulated" for an emulated boot's run, else
// the backend's module (kvm_intel, kvm_pvm, ...): the backend every export names.
inline std::string backend_label(const RunReport& r) {
    if (execution_of(r) == "emulated") return r.host.backend_module + " nested under QEMU TCG, emulated";
    return r.host.backend_module;
}

// A run's split: its tests' phases, the set-up's and the trace verification's
// time, and the rest of `total_ns` as other (negative only if phases
// overlapped: a bug).
WallSplit account_run(const std::vector<TestResult>& results, int64_t total_ns, int64_t trace_verify_ns,
                      int64_t setup_ns = 0);

// ExitCheck::source of exits verified through a kvm tracepoint.
inline constexpr const char* kTraceSource = "trace: ";
// Starts a warning that a knob did not take (the guest reads back another
// value): the configuration is not the one asked for, so compare, recipe run
// and every export treat it as not testable.
inline constexpr const char* kKnobNotApplied = "configuration not testable: ";
bool knob_not_applied(const std::string& warning);
// "ok (trace)" for those, else status_name.
std::string status_label(const TestResult& t);
// What a row says: the status and, where a tracepoint verified it, what it
// counted: "ok (trace: emulated 1.00/iter)", "mismatch (trace: kvm_msr 0x48 1.00/iter)".
std::string status_text(const TestResult& t);

int severity(Status s);  // which status wins when sessions disagree: failures > skipped > ...

// Every repeat of every session in run order: for min/max, never for inference.
std::vector<double> all_repeats(const TestResult& t);
inline bool measured(const TestResult& t) { return !t.sessions.empty(); }

// A test's headline figure and interval, at the level its data support. One
// session: the median of the repeats and the distribution-free interval of
// that median, which only describes this session (the next VM may differ by
// more). Several: the geometric mean of the session medians and the t
// interval of their logs, which does describe run-to-run reproducibility.
struct Headline {
    double cycles = 0;
    stats::Interval ci{0, 0};
    double coverage = 0;           // the interval's actual coverage (below 95% with few values)
    size_t sessions = 0;
    bool between_sessions = false; // the interval comes from session medians
    double within_cv = 0;          // median over sessions of the CV of its repeats (0: too few)
    double between_cv = 0;         // SD of the log session medians (0 with one session)
};
std::optional<Headline> headline(const TestResult& t);

// Folds the results of one test from several sessions (run order) into one:
// all sessions' samples, the worst status with its session named.
TestResult merge_sessions(std::vector<TestResult> per_session);

// The baseline test's headline cycles, if it ran.
std::optional<double> baseline_cycles(const RunReport& r);
// Median per-exit sample of the baseline: the timestamp pair's own cost.
std::optional<double> per_exit_overhead(const RunReport& r);
// Sets each result's userspace_split from its user_times, once the baseline is known.
void split_userspace_exits(RunReport& r);

} // namespace eb::suite
