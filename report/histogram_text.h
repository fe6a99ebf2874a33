// A histogram as text lines, for the run table's per-exit distributions.
#pragma once
#include <cstddef>
#include <string>

#include "stats/inference.h"

namespace eb::report {

// One '\n'-terminated line per bin: range, count, a bar of '#' up to width.
std::string render_histogram(const stats::Histogram& h, size_t width);

} // namespace eb::report
