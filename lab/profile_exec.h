// `profile record -- COMMAND ARGS`, the use case: record while a command
// runs, as `perf kvm stat record -- COMMAND` does.
#pragma once
#include <atomic>
#include <string>
#include <vector>

#include "profile/record.h"

namespace eb::lab {

struct CommandRecording {
    profile::RecordResult result;
    std::string status;  // how the command ended: "exit status 0", "killed by signal 15"
};

// `profile record -p PID... | -a`: until `interrupt`, or o.duration_s.
// InputError for a PID that is not a KVM process, HostError for tracefs.
profile::RecordResult record_processes(const profile::RecordOptions& o, const std::atomic<bool>& interrupt);
// `profile cleanup`: the ftrace instances whose exitbench process is gone.
profile::Sweep sweep_stale_instances();

// What a trace records of the host it was taken on: the exit ISA (VMX or
// SVM), the KVM module and the CPU model.
void stamp_host(profile::RecordOptions& o);

// Starts COMMAND held until tracing is on, records its process and every
// process it forks (every process with o.all), and stops when it exits or
// `interrupt` is set (then the command is stopped too). Throws InputError
// when the command cannot be found, HostError when the host cannot record or
// the command cannot be started.
CommandRecording record_command(const std::vector<std::string>& command, profile::RecordOptions o,
                                const std::atomic<bool>& interrupt);

} // namespace eb::lab
