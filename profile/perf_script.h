// `perf script` text of a `perf kvm stat record` perf.data, read as
// exitbench's events, so a peer's perf.data becomes a trace file that
// `profile report` and `profile compare` analyze with percentiles and tests.
//
// Expected fields: `perf script --ns -F trace:tid,cpu,time,event,trace`, e.g.
//   100 [000]     7.766865140:  kvm:kvm_exit: vcpu 0 reason npf rip 0x100030 info1 ...
// kvm_exit, kvm_entry, kvm_msr, kvm_pio, kvm_mmio and kvm_userspace_exit
// become events; other tracepoints are counted and left out.
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "profile/trace_file.h"

namespace eb::profile {

struct PerfScriptError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct PerfScript {
    TraceFile trace;                               // header.isa from kvm_exit's reason names
    std::map<std::string, uint64_t> skipped;       // tracepoints left out, by name
};

// The perf script arguments the parser expects, after `-i FILE`.
// ("trace:" limits the fields to tracepoints, so perf warns about no other event type.)
inline constexpr const char* kPerfScriptArgs[] = {"--ns", "-F", "trace:tid,cpu,time,event,trace"};

// Throws PerfScriptError (one line, naming the line number) for a line that
// is not perf script's, a kvm tracepoint whose fields do not parse, or no kvm
// event at all.
PerfScript parse_perf_script(std::string_view text);

} // namespace eb::profile
