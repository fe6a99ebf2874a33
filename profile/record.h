// Records the kvm tracepoints of chosen processes into an exitbench trace
// file, through libtracefs in an ftrace instance of its own.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "profile/trace_file.h"

namespace eb::profile {

struct RecordOptions {
    std::vector<int> pids;        // processes to record (all their threads); empty with all
    bool all = false;             // every process
    double duration_s = 0;        // 0: until `stop`
    std::string out;              // trace file
    uint32_t buffer_kb = 16384;   // ring buffer per CPU
    bool require_kvm = true;      // pids must already have a VM open (not for our own process)
    // When set, events go here instead of to `out` (profile live).
    std::function<void(const Event&)> sink;
    std::string isa, backend, cpu_model;  // for the header
    // The kvm tracepoints to enable; empty: recorded_tracepoints(). Fewer
    // events cost the traced guest less (kvm_emulate_insn fires per emulated
    // instruction on software backends).
    std::vector<std::string> tracepoints;
    // In-kernel filters, (tracepoint, ftrace filter expression): e.g.
    // kvm_emulate_insn on the RIPs of interest only, so the others cost no
    // ring-buffer record.
    std::vector<std::pair<std::string, std::string>> filters;
};

struct RecordResult {
    uint64_t events = 0;
    uint64_t lost = 0;                     // ring-buffer overruns, summed over CPUs
    std::vector<std::string> available;    // kvm tracepoints that exist here
    std::vector<std::string> missing;      // asked for, absent from this kernel
};

// The tracepoints exitbench records; kvm_exit/kvm_entry pairs give latencies.
const std::vector<std::string>& recorded_tracepoints();

// Throws std::runtime_error with one line: no tracefs, no permission (root
// or CAP_PERFMON and tracefs access), a pid that is not a KVM process.
void check_pid_is_kvm(int pid);

// Each Recorder owns the ftrace instance "exitbench-PID". Removes those whose
// process no longer runs (left by SIGKILL or a crash, with kvm events still
// on) and returns their names; `failed` gets "name: reason" for the others.
// Throws std::runtime_error when tracefs cannot be used at all.
struct Sweep {
    std::vector<std::string> removed, failed;
};
Sweep sweep_stale_instances();
// True while a Recorder holds an instance. Async-signal-safe.
bool instance_active();

class Recorder {
public:
    // Sweeps stale instances (saying so on stderr), then creates a fresh
    // one: never one that already existed.
    explicit Recorder(RecordOptions opt);
    ~Recorder();
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;

    // Enables the events and starts tracing; add pids before if filtering.
    void start();
    // Drains what the ring buffer holds into the file; call often.
    void poll();
    // Stops tracing, drains, and writes the file.
    RecordResult finish();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;  // frees what a throwing constructor acquired
};

// Optional steps of record(): on_start runs once tracing is on (to start a
// command only then); done is polled, and true ends the recording.
struct RecordHooks {
    std::function<void()> on_start;
    std::function<bool()> done;
};

// start(); poll() until duration, stop or hooks.done; finish().
RecordResult record(const RecordOptions& opt, const std::atomic<bool>& stop, const RecordHooks& hooks = {});

} // namespace eb::profile
