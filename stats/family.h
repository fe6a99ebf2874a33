// A family of tests read together (every test of a suite, every
// configuration): p-values adjusted so that the verdicts over all of them keep
// their error rate. Pure; no I/O.
#pragma once
#include <span>
#include <vector>

namespace eb::stats {

// Holm's step-down adjustment: the family-wise error (any false verdict among
// the tests) stays <= alpha when each test is read at adjusted p < alpha,
// under any dependence between the tests. NaN entries are not tests: they
// stay NaN and do not count in the family.
std::vector<double> holm_adjust(std::span<const double> p);

// Benjamini-Hochberg q-values: the expected share of false verdicts among the
// verdicts stays <= alpha (for independent or positively dependent tests).
// NaN entries as for holm_adjust.
std::vector<double> bh_adjust(std::span<const double> p);

} // namespace eb::stats
