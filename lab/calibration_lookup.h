// Which stored calibration, if any, plans a saved comparison's runs (never
// tests them: suite::compare_saved), and why others are not used.
#pragma once
#include <string>
#include <vector>

#include "suite/calibration.h"
#include "suite/result.h"

namespace eb::lab {

struct Lookup {
    suite::Calibrations spreads;        // per test: the one that plans
    std::vector<std::string> warnings;  // calibrations found but not used, naming what differs
};

// Per test: the newest calibration on the runs' host that describes every
// run (suite::why_not_plan: host, kernel, backend, CPU and settings), with
// its age and whether it was made in the runs' boot. `db` empty: the
// default history path. A store that does not exist holds no calibration
// (not an error); one that cannot be read is a warning.
Lookup find_calibrations(const std::string& db, const std::vector<std::vector<suite::RunReport>>& sides);

} // namespace eb::lab
