// Order statistics over samples. Pure functions; no I/O.
#pragma once
#include <span>
#include <vector>

namespace eb::stats {

// All of these require a non-empty span and throw std::invalid_argument otherwise.
double median(std::span<const double> xs);
double min(std::span<const double> xs);
double max(std::span<const double> xs);
double mean(std::span<const double> xs);
// Linear interpolation between closest ranks (type 7), q in [0, 1].
double quantile(std::span<const double> xs, double q);

} // namespace eb::stats
