// The text output's account of a run's wall time, after the results: where
// the time went by phase, how many sessions reused a calibrated batch size,
// and which hung tests later sessions left out.
#pragma once
#include <string>

#include "suite/result.h"

namespace eb::report {

// Empty when the run has no account (read from an older file, imported).
std::string wall_time_text(const suite::RunReport& r);

} // namespace eb::report
