// `profile compare` of saved host profiles (run --host-profile's, kept in
// the result): each side's runs from the history (run:N, label:NAME) or run
// JSON files, the run as the unit, so days apart is fine; per function
// what moved (profile/host_diff.h), the functions sampled on one side only,
// and the differential flame graphs of the HTML export.
#pragma once
#include <string>
#include <vector>

#include "report/exporter.h"

namespace eb::lab {

// Whether `arg` names a saved run rather than a trace: a history reference,
// or a file whose first byte past white space opens a JSON object.
bool names_saved_run(const std::string& arg);

// Each side's references expanded to runs (a label is every run under it).
// InputError for a run given on both sides or twice, or a side whose runs
// hold no host profile (run them with --host-profile). A differential flame
// graph per test held on both sides.
report::HostProfileComparison compare_saved_host_profiles(const std::vector<std::string>& a, const std::vector<std::string>& b,
                                          const std::string& db, double alpha);

} // namespace eb::lab
