// The file a calibrate whose save failed kept: its calibration, checked row
// by row as compare checks a stored one on reading.
#pragma once
#include <string>

#include "suite/calibration.h"

namespace eb::ingest {

// InputError naming `path` for a file that is not a kept calibration, or
// holds no test, or a row no compare would accept.
suite::Calibration read_kept_calibration(const std::string& path);

} // namespace eb::ingest
