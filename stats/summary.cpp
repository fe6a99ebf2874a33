#include "stats/summary.h"
#include "stats/preconditions.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace eb::stats {

double quantile(std::span<const double> xs, double q) {
    need(xs);
    if (!(q >= 0 && q <= 1)) throw std::invalid_argument("quantile outside [0, 1]");
    std::vector<double> v(xs.begin(), xs.end());
    std::sort(v.begin(), v.end());
    double pos = q * (v.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

double median(std::span<const double> xs) { return quantile(xs, 0.5); }

double min(std::span<const double> xs) {
    need(xs);
    return *std::min_element(xs.begin(), xs.end());
}

double max(std::span<const double> xs) {
    need(xs);
    return *std::max_element(xs.begin(), xs.end());
}

double mean(std::span<const double> xs) {
    need(xs);
    return std::accumulate(xs.begin(), xs.end(), 0.0) / xs.size();
}

} // namespace eb::stats
