// compare's saved mode, the use case: saved results (files, or "run:N" and
// "label:L" references to the history), one or more a side, loaded; what
// differs between them said; each test compared with the run (or the boot)
// as the unit, and a matching calibration's plan for the runs to make
// (never its spread for a verdict). The command
// line decides which inputs are on which side and refuses live-only options.
#pragma once
#include <string>
#include <vector>

#include "suite/compare.h"

namespace eb::lab {

// `refs[k]`: side k's inputs. `header` gets the lines that say what was
// compared and how the inputs differ. InputError for an input that does not
// read, the same input twice, or sides that share no test. `target`: the
// detectable difference the plans are for.
suite::ComparisonReport compare_saved(const std::vector<std::vector<std::string>>& refs, const std::string& db,
                                      double alpha, std::vector<std::string>& header,
                                      double target = suite::kPlanTarget);

} // namespace eb::lab
