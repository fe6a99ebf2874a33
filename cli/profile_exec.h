// `profile record -- COMMAND ARGS`: record while a command runs, as
// `perf kvm stat record -- COMMAND` does.
#pragma once
#include <atomic>
#include <string>
#include <vector>

#include "profile/record.h"

namespace eb::cli {

// Starts COMMAND held until tracing is on, records its process and every
// process it forks, and stops when it exits. Throws UsageError when the
// command cannot be found, HostError when the host cannot record.
int record_command(const std::vector<std::string>& command, profile::RecordOptions o,
                   const std::atomic<bool>& interrupt);

} // namespace eb::cli
