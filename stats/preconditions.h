// What every statistic in stats/ shares: its precondition check and NaN.
// A broken precondition is a bug in the caller (std::invalid_argument, an
// internal error), never a user's input: callers check their data first.
#pragma once
#include <limits>
#include <span>
#include <stdexcept>

namespace eb::stats {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline void need(std::span<const double> xs) {
    if (xs.empty()) throw std::invalid_argument("statistics of an empty sample set");
}

} // namespace eb::stats
