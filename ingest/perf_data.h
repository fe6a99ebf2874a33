// A `perf kvm stat record` perf.data, read through `perf script` (spawned by
// sys/process.h: argv, no shell, its own process group) into exitbench's
// trace file, so `profile report` and `profile compare` take it.
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace eb::ingest {

struct PerfDataImport {
    uint64_t events = 0;
    std::string isa;                          // "svm", "vmx" or "" (no kvm_exit)
    std::map<std::string, uint64_t> skipped;  // kvm tracepoints left out, by name
};

// The checks before any output is made: a perf.data (its magic) and perf
// installed. InputError or HostError, as below.
void check_perf_data(const std::string& perf_data);

// Writes the trace of `perf_data` to `out`. InputError for a missing or
// non-perf.data file, or one perf script cannot read; HostError when perf
// is not installed or cannot run.
PerfDataImport import_perf_data(const std::string& perf_data, const std::string& out);

} // namespace eb::ingest
