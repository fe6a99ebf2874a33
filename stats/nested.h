// Variance components of a nested design (repeats within sessions within runs
// within boots), each level estimated once, with unequal group sizes. Pure.
#pragma once
#include <vector>

namespace eb::stats {

// A group of the design: a leaf holds values (e.g. a session's log repeats),
// an inner node holds groups of the level below (a run's sessions). Every
// leaf sits at the same depth; empty groups are ignored.
struct Nest {
    std::vector<double> values;
    std::vector<Nest> children;
};

// The SD each level adds, bottom up: [0] values within their leaf, [1] leaves
// within their parent, ... up to the root's children. Method of moments: the
// pooled spread of a level's means about their parent's mean, minus what the
// levels below put into those means (each mean's own share, e.g. sigma_0^2 / n
// for a leaf of n values, so unequal sizes enter as the mean of 1/n), floored
// at 0. NaN for a level with no parent holding two groups: it cannot be told
// from the level above, whose figure then includes it.
std::vector<double> nested_sd(const Nest& root);

} // namespace eb::stats
