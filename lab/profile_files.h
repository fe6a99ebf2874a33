// The profiler's use cases on files: a perf.data converted into a trace, a
// trace (or perf.data, or a perf kvm stat report's text) analyzed, two
// sides of them compared, perf kvm stat's tables imported.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ingest/perf_data.h"
#include "lab/vocabulary.h"

namespace eb::lab {

using ingest::PerfEvents;

// `profile import`: `perf_data`'s kvm events into the trace file `out`
// (perf need not be installed). InputError for a file that is not such a
// perf.data or an `out` that cannot be written; HostError when it cannot be read.
PerfEvents import_perf_data(const std::string& perf_data, const std::string& out);

// `profile report -i PATH`: a trace file, a perf.data or a perf kvm stat
// report text, by its content.
ProfileReport read_profile(const std::string& path, const ProfileOptions& opt);

// `profile compare`: one file a side (`sets` false: one VM a side,
// descriptive) or several a side, the trace as the unit. InputError for a
// file given twice (one VM would count as two).
std::vector<ReasonChange> compare_profiles(const std::vector<std::string>& olds, const std::vector<std::string>& news,
                                           const ProfileOptions& opt, bool sets);

// `import perf-kvm FILE`: each table of a `perf kvm stat report` text, and
// exitbench's reading of it as JSON with its source (the file and its sha256).
struct PerfTables {
    std::string file, sha256;
    std::vector<ProfileReport> tables;
    nlohmann::json json;  // an array, one object a table
};
PerfTables import_perf_tables(const std::string& file);

} // namespace eb::lab
