// A `perf kvm stat record` perf.data, read directly (perf_file.h: its header,
// attributes, tracing data and records, streamed; perf need not be
// installed) into exitbench's trace file, so `profile report` and `profile
// compare` take it. Events go out in time order, as perf's own tools see
// them: each FINISHED_ROUND lets out what no later record can precede.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "profile/analyze.h"

namespace eb::ingest {

struct PerfEvents {
    uint64_t events = 0;
    std::string isa;                          // "svm", "vmx" or "" (no kvm_exit)
    std::map<std::string, uint64_t> skipped;  // samples left out, by event ("sched:sched_switch")
    uint64_t lost = 0;                        // events perf said it lost (LOST, LOST_SAMPLES records)
    std::vector<std::string> tracepoints;     // the kvm tracepoints recorded ("kvm_exit", ...)
    bool pipe_mode = false;
};

// Whether `path` starts with perf.data's magic, in either byte order (the
// reader refuses the other one itself, by name).
bool is_perf_data(const std::string& path);
// The checks before any output is made: a regular file with perf.data's
// magic. InputError otherwise.
void check_perf_data(const std::string& perf_data);

// Writes the trace of `perf_data` to `out`, published only when whole. The
// reader makes check_perf_data's checks itself, with the same words.
// InputError (one line naming the file) for a file that is not a perf.data
// this reader can read, or one without kvm samples; HostError when it
// cannot be read.
PerfEvents import_perf_data(const std::string& perf_data, const std::string& out);

// `profile report` of a perf.data without a trace file between: its events
// streamed into the analysis, nothing held per event but the durations.
// Errors as import_perf_data's.
profile::Report analyze_perf_data(const std::string& perf_data, const profile::Options& opt);

} // namespace eb::ingest
