// The machine-readable result: schema "exitbench-run", versioned.
#pragma once
#include <nlohmann/json.hpp>

#include "suite/result.h"

namespace eb::report {

inline constexpr int kSchemaVersion = 1;

nlohmann::json to_json(const suite::RunReport& r);
// Throws std::runtime_error with a one-line reason on a foreign or malformed document.
suite::RunReport from_json(const nlohmann::json& j);

} // namespace eb::report
