#include "stats/family.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace eb::stats {

namespace {

// Indices of the non-NaN p-values, ascending by p.
std::vector<size_t> ranked(std::span<const double> p) {
    std::vector<size_t> idx;
    for (size_t i = 0; i < p.size(); ++i)
        if (!std::isnan(p[i])) idx.push_back(i);
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
    return idx;
}

} // namespace

std::vector<double> holm_adjust(std::span<const double> p) {
    std::vector<double> out(p.begin(), p.end());
    auto idx = ranked(p);
    double m = double(idx.size()), running = 0;
    for (size_t r = 0; r < idx.size(); ++r) {
        // Step r compares with alpha / (m - r); the max keeps the order monotone.
        running = std::max(running, std::min(1.0, (m - double(r)) * p[idx[r]]));
        out[idx[r]] = running;
    }
    return out;
}

std::vector<double> bh_adjust(std::span<const double> p) {
    std::vector<double> out(p.begin(), p.end());
    auto idx = ranked(p);
    double m = double(idx.size()), running = 1;
    for (size_t r = idx.size(); r-- > 0;) {
        running = std::min(running, std::min(1.0, m / double(r + 1) * p[idx[r]]));
        out[idx[r]] = running;
    }
    return out;
}

} // namespace eb::stats
