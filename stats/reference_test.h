// One run a side (or one against a few) against a calibration's runs: the
// observed difference of the sides' run means is ranked among the same
// difference taken between disjoint sets of the calibration's own runs
// (each unordered pair of sets once when the sides hold as many runs). With
// K calibration runs and one run a side those are K(K-1)/2 differences, so
// the smallest p-value is 1 / (1 + K(K-1)/2): 5 runs cannot give less than
// 1/11. The differences come from the data, so heavy tails and jumps the
// calibration holds are in the test; no normal distribution is assumed for
// them. Only the finite calibration is corrected for: its differences are
// read wider by t(K-1) / z at the level tested (1.07 at K = 20, alpha
// 0.05), the factor by which a spread estimated from K runs understates a
// new pair's (without it a 20-run calibration gives 5.7% false verdicts at
// 5%). The caller checks that the compared runs are like the calibration's
// (same boot, settings and conditions). Pure.
#pragma once
#include <cstddef>
#include <vector>

#include "stats/inference.h"

namespace eb::stats {

struct Reference {
    std::vector<double> diffs;     // mean(S_b) - mean(S_a) over disjoint run sets, both orientations, sorted
    std::vector<double> abs_desc;  // |diff| of each distinct pair of sets, largest first
    size_t runs = 0, side_a = 0, side_b = 0;
    double run_sd = 0;             // SD of the calibration's run means
};

// At most this many pairs of sets are enumerated; beyond, as many are drawn with a fixed seed.
inline constexpr size_t kMaxDifferences = 200000;

// Throws std::invalid_argument with fewer runs than the sides hold together.
Reference make_reference(const std::vector<double>& run_means, size_t side_a, size_t side_b);

// The distinct pairs of sets K runs hold (one run a side: K(K-1)/2).
double reference_size(size_t runs, size_t side_a, size_t side_b);
// The smallest p-value: 1 / (1 + its size).
double min_p(const Reference& r);
// The fewest calibration runs whose smallest p-value is below `alpha`.
size_t runs_needed(double alpha, size_t side_a, size_t side_b);
// t(K - 1) / z at two-sided `level`: how much wider the differences are read.
double finite_factor(size_t runs, double level);

// Two-sided p of "no difference" for the observed `obs`, the differences
// read wider by finite_factor(level): (1 + #{f |d| >= |obs|}) / (1 + size).
double reference_p(const Reference& r, double obs, double level);
// One-sided: of "B - A <= shift", over both orientations.
double reference_p_upper(const Reference& r, double obs, double shift, double level);
// obs +- f(alpha) times the critical |d| at alpha: exactly the shifts that
// test does not reject. Infinite when no p below alpha is possible.
Interval reference_ci(const Reference& r, double obs, double alpha);
// The shift found with `power` at `alpha`: the larger of the t formula on the
// calibration's run SD (K - 1 df) and the critical |d| plus the differences'
// power quantile, read wider; infinite when no p below alpha is possible.
double reference_detectable(const Reference& r, double alpha, double power = 0.8);

} // namespace eb::stats
