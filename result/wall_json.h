// The run's wall-time account in the result: "wall_time", seconds by phase.
// Optional in schema_version 4 (absent in files written before it was
// recorded and in imported runs).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>

#include "suite/result.h"

namespace eb::result {

nlohmann::json wall_time_json(const suite::WallSplit& w);
// Throws std::runtime_error naming the field that is missing or not a number.
suite::WallSplit wall_time_from(const nlohmann::json& j);

} // namespace eb::result
