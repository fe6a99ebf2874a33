// A profile as text, for people and for perf's readers: the exporters'
// table format and `profile report --perf`, `profile compare`, `import perf`.
#pragma once
#include <string>
#include <vector>

#include "profile/analyze.h"

namespace eb::report {

// perf kvm stat report --stdio's table, row for row.
std::string render_perf(const profile::Report& r);
// The same with p50/p99/max, drops, the per-vCPU breakdown and a log2
// histogram per row.
std::string render_extended(const profile::Report& r);
// Before/after per key (profile compare): counts, mean/p50/p99 shifts, and
// the verdict across traces or why there is none.
std::string render_profile_compare(const std::vector<profile::ReasonChange>& changes, profile::Mode mode);

} // namespace eb::report
