// The A/B report: text for people, JSON for machines (schema
// "exitbench-compare"). Both show the level the verdicts were made at.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "suite/compare.h"

namespace eb::report {

// 3: per side, sd_log.between_boots and boots. 4: the level (run, boot, round;
// no more session), level_why, levels_not_seen, family_size, p_holm and q_bh,
// the nested sd_log levels, runs and sessions_left_out.
inline constexpr int kCompareSchemaVersion = 5;  // 5: "plans"; no run_to_run_spread_from (one run a side is never tested)

std::string render_comparison(const suite::ComparisonReport& c);
nlohmann::json comparison_json(const suite::ComparisonReport& c);

} // namespace eb::report
