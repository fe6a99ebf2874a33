// A/B comparison of runs: pools each configuration's samples per test and
// compares every configuration with the first one. Pure: no I/O.
#pragma once
#include <string>
#include <vector>

#include "stats/inference.h"
#include "suite/result.h"

namespace eb::suite {

struct ConfigSummary {
    std::string label;
    std::vector<double> samples;   // cycles per iteration, pooled over rounds
    double median = 0;
    stats::Interval median_ci{0, 0};
    double ci_coverage = 0;        // exact coverage of median_ci: below 95% with very few samples
    double cv = 0;                 // across samples (0 with fewer than two)
    size_t outliers = 0;           // Tukey fences; reported, never dropped
    std::string status;            // the worst status seen over the rounds
};

struct TestComparison {
    std::string test;
    std::vector<ConfigSummary> configs;
    std::vector<stats::Comparison> vs_first;  // configs[i] against configs[0], i >= 1
};

struct ComparisonReport {
    std::vector<std::string> labels;
    std::vector<TestComparison> tests;
    std::vector<std::string> warnings;        // partial overlap, empty samples, host differences
};

// runs[k]: every RunReport of configuration k (one per round, or one saved file).
ComparisonReport compare_runs(const std::vector<std::string>& labels,
                              const std::vector<std::vector<RunReport>>& runs, double alpha = 0.05);

// Host facts whose difference makes two results hard to compare.
std::vector<std::string> host_differences(const RunReport& a, const RunReport& b);

} // namespace eb::suite
