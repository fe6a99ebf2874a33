// `profile import PERF.DATA -o OUT.trace`: a `perf kvm stat record` perf.data,
// through `perf script`, as exitbench's trace file.
#pragma once
#include <string>

namespace eb::cli {

// UsageError for a missing or non-perf.data file or output perf script
// cannot be read back; HostError (exit 3) when perf is not installed or fails.
int profile_import(const std::string& perf_data, const std::string& out);

} // namespace eb::cli
