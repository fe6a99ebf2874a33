// The machine-readable result: schema "exitbench-run", versioned.
#pragma once
#include <istream>
#include <nlohmann/json.hpp>
#include <string>

#include "suite/result.h"

namespace eb::result {

// 2: results keep every session (--sessions) and a summary at its level.
// 3: "provenance": when, where, the command line, the build and the boot.
// 4: "provenance.imported": the tool and file an imported run came from, or null.
//    "host_profile" counts the harness's exits apart (harness_exits, harness_mean_ns);
//    "userspace_split": the VMM's handling time of userspace exits.
//    Added later, optional, so version 4 still: "provenance.imported.logs", each log's
//    file, sha256 and tests when several files were imported as one run (absent otherwise).
//    Also optional, so version 4 still (older readers ignore them, absent in older files):
//    "wall_time", the run's wall time by phase; per session "batch_reused"; per result
//    "not_rerun_after_hang"; settings "retry_hung".
// 5: per result "host_samples", run --host-profile's sampled host profile
//    (result/host_samples_json.h), null without one; absent before 5.
inline constexpr int kSchemaVersion = 6;
// Deeper documents are refused: no valid result nests past a handful of levels.
inline constexpr int kMaxDepth = 64;

nlohmann::json to_json(const suite::RunReport& r);
// Throws std::runtime_error with a one-line reason on a foreign or malformed document.
// Reads schema versions 1 (one session per test) to 5; before 3 the provenance is empty, before 4
// there is no userspace split and host profiles count no harness exits, before 5 no host samples.
suite::RunReport from_json(const nlohmann::json& j);
// Parses a file's text with the depth bound; errors name the file and where
// the text stops being JSON.
nlohmann::json parse_document(std::istream& in, const std::string& name);

} // namespace eb::result
