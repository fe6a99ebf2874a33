// Which stored calibration, if any, a saved comparison with one run on a side
// may borrow its run-to-run spread from, and why others are not used.
#pragma once
#include <string>
#include <vector>

#include "suite/calibration.h"
#include "suite/result.h"

namespace eb::lab {

struct Lookup {
    suite::Calibrations spreads;        // per test: the one to use
    std::vector<std::string> warnings;  // calibrations found but not used, naming what differs
};

// Only when a side holds one run: per test, the newest calibration on the
// runs' host that every run may borrow (suite::why_not_lend: host, kernel,
// backend, CPU, settings, sessions, repeats, and the same boot: there is no
// age limit beyond the boot's; whether it still describes the runs is
// checked by compare on the runs themselves). `db` empty: the default history path.
// A store that does not exist holds no calibration (not an error); one that
// cannot be read is a warning.
Lookup find_calibrations(const std::string& db, const std::vector<std::vector<suite::RunReport>>& sides);

} // namespace eb::lab
