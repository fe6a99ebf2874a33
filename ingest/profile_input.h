// What `profile report` and `profile compare` take as a side: exitbench's
// trace file, analyzed, or `perf kvm stat report` text, its table as it is.
#pragma once
#include <string>

#include "profile/analyze.h"

namespace eb::ingest {

// The report of opt.mode from `path`. InputError for a FIFO or device, a
// --vcpu on perf's table (it has no vCPU column), or no such table in it.
profile::Report read_profile(const std::string& path, const profile::Options& opt);

} // namespace eb::ingest
