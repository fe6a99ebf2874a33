// A calibration as JSON: the file a calibrate whose save failed keeps (with
// its runs), which `import calibration` stores.
#pragma once
#include <nlohmann/json.hpp>

#include "suite/calibration.h"

namespace eb::result {

inline constexpr const char* kCalibrationFileSchema = "exitbench-calibration/1";

nlohmann::json calibration_to_json(const suite::Calibration& c);
// Throws std::runtime_error naming the field that is missing or of the wrong type.
suite::Calibration calibration_from_json(const nlohmann::json& j);

} // namespace eb::result
