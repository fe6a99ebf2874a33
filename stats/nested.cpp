#include "stats/nested.h"
#include "stats/preconditions.h"

#include <algorithm>
#include <cmath>
#include <limits>


namespace eb::stats {

namespace {

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
// Sums over a node's groups, shifted by the first mean so that squaring
// small differences of logs near 7 loses nothing.
struct Sums {
    size_t k = 0;
    double ref = 0, sum = 0, sq = 0, below = 0;
    void add(double m, double b) {
        if (k == 0) ref = m;
        ++k;
        sum += m - ref;
        sq += (m - ref) * (m - ref);
        below += b;
    }
};

Mean walk(const Nest& n, const std::vector<double>& var, size_t target, Pool& pool) {
    Mean out;
    Sums g;
    if (n.children.empty()) {
        out.height = 1;
        for (double v : n.values) g.add(v, 0);
    } else {
        for (const auto& c : n.children) {
            auto m = walk(c, var, target, pool);
            out.height = std::max(out.height, m.height + 1);
            if (!std::isnan(m.mean)) g.add(m.mean, m.below);
        }
    }
    if (g.k == 0) return out;
    double k = double(g.k), level = double(out.height - 1);
    out.mean = g.ref + g.sum / k;
    double below = g.below / k;
    if (size_t(level) == target && g.k >= 2) {
        pool.ss += g.sq - g.sum * g.sum / k;
        pool.df += k - 1;
        pool.below += (k - 1) * below;
    }
    // Var(mean of k groups) = (level's variance + mean share below) / k.
    out.below = size_t(level) < var.size() ? (var[size_t(level)] + below) / k : kNaN;
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
