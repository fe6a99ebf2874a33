// Counters that stop at UINT64_MAX instead of wrapping: a hostile or huge
// trace's sums must not come back small.
#pragma once
#include <cstdint>

namespace eb::profile {

inline uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

} // namespace eb::profile
