// compare's warnings and advice that span tests. Internal to suite/compare.cpp. Pure.
#pragma once
#include "suite/compare.h"

namespace eb::suite {

// Appends to out.warnings and out.advice from the finished comparisons.
void review(ComparisonReport& out);

} // namespace eb::suite
