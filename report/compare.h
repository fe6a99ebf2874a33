// The A/B report: text for people, JSON for machines (schema
// "exitbench-compare"). Both show the level the verdicts were made at.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "suite/compare.h"

namespace eb::report {

// 3: per side, sd_log.between_boots and boots.
inline constexpr int kCompareSchemaVersion = 3;

std::string render_comparison(const suite::ComparisonReport& c);
nlohmann::json comparison_json(const suite::ComparisonReport& c);

} // namespace eb::report
