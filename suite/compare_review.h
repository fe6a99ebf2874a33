// compare's warnings and advice that span tests. Internal to suite/compare.cpp. Pure.
#pragma once
#include "suite/compare.h"

namespace eb::suite {

// Appends to out.warnings and out.advice from the finished comparisons
// (and out.plans' lines, so plan_from comes first).
void review(ComparisonReport& out);

// out.plans from the calibrations that match the runs (compare_plan.cpp).
void plan_from(ComparisonReport& out, const Calibrations& cal, double target);
// One plan as a line of advice.
std::string plan_line(const ComparisonReport& out, const Plan& p);

} // namespace eb::suite
