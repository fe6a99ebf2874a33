#include "stats/nested.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stats/summary.h"

namespace eb::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Sums that pool one level over every parent holding two or more groups.
struct Pool {
    double ss = 0;     // squared deviations of the groups' means about their parent's mean
    double df = 0;     // sum of (groups - 1)
    double below = 0;  // sum of (groups - 1) * the mean share of the levels below in a group's mean
};

// A node's mean and the variance its mean carries from the levels below it.
struct Mean {
    double mean = kNaN;
    double below = 0;
    size_t height = 0;  // 1 for a leaf
};

// `var` holds the variances of the levels estimated so far (a level that
// could not be estimated counts 0 there: the level above absorbs it). Pools
// level `target` into `pool`.
Mean walk(const Nest& n, const std::vector<double>& var, size_t target, Pool& pool) {
    Mean out;
    std::vector<double> means, belows;
    if (n.children.empty()) {
        out.height = 1;
        means = n.values;
        belows.assign(means.size(), 0);
    } else {
        for (const auto& c : n.children) {
            auto m = walk(c, var, target, pool);
            out.height = std::max(out.height, m.height + 1);
            if (std::isnan(m.mean)) continue;
            means.push_back(m.mean);
            belows.push_back(m.below);
        }
    }
    if (means.empty()) return out;
    size_t k = means.size(), level = out.height - 1;
    out.mean = mean(means);
    double below = mean(belows);
    if (level == target && k >= 2) {
        for (double m : means) pool.ss += (m - out.mean) * (m - out.mean);
        pool.df += double(k - 1);
        pool.below += double(k - 1) * below;
    }
    // Var(mean of k groups) = (level's variance + mean share below) / k.
    out.below = level < var.size() ? (var[level] + below) / double(k) : kNaN;
    return out;
}

} // namespace

std::vector<double> nested_sd(const Nest& root) {
    std::vector<double> used, sd;
    Pool probe;
    size_t height = walk(root, used, size_t(-1), probe).height;
    for (size_t level = 0; level < height; ++level) {
        Pool pool;
        walk(root, used, level, pool);
        double v = pool.df > 0 ? std::max(0.0, (pool.ss - pool.below) / pool.df) : kNaN;
        sd.push_back(std::isnan(v) ? kNaN : std::sqrt(v));
        used.push_back(std::isnan(v) ? 0 : v);
    }
    return sd;
}

} // namespace eb::stats
