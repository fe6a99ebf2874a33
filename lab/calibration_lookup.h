// Which stored calibration, if any, a saved comparison with one run on a side
// may borrow its run-to-run spread from, and why others are not used.
#pragma once
#include <string>
#include <vector>

#include "suite/calibration.h"
#include "suite/result.h"

namespace eb::lab {

// A calibration older than this before the newest compared run is stale:
// a policy (microcode, firmware and the host's load move on), not a figure.
inline constexpr double kStaleDays = 30;

struct Lookup {
    suite::Calibrations spreads;        // per test: the one to use
    std::vector<std::string> warnings;  // calibrations found but not used, naming what differs
};

// Only when a side holds one run: per test, the newest calibration on the
// runs' host that matches every run (host, kernel, backend, CPU, settings;
// suite::mismatches) and is not stale. `db` empty: the default history path.
// A store that does not exist holds no calibration (not an error); one that
// cannot be read is a warning.
Lookup find_calibrations(const std::string& db, const std::vector<std::vector<suite::RunReport>>& sides);

} // namespace eb::lab
