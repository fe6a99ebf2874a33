// compare --fail-if-slower PCT as a decision over the family of comparisons.
// Rule: a test fails the gate when it is slower after Holm's correction over
// the family AND the one-sided test of "the slowdown is at most PCT %" rejects
// at alpha / 2 after Holm's correction over the same family. For one test that
// is: the lower end of its (1 - alpha) interval lies above +PCT %. The chance
// that any test whose true slowdown is <= PCT % fails the gate stays <= alpha / 2.
// Pure: the command line prints and maps the outcome to an exit code.
#pragma once
#include <string>
#include <vector>

#include "suite/compare.h"

namespace eb::suite {

enum class GateOutcome { Clear, NotTestable, Regression };

struct GateEntry {
    std::string test, label;   // the test and the configuration compared with configs[0]
    const Effect* effect = nullptr;
    double p_over = 1;         // Holm-adjusted one-sided p of "slowdown > PCT"
    bool fails = false;
};

struct GateResult {
    GateOutcome outcome = GateOutcome::Clear;
    size_t family = 0;                    // comparisons the gate read (the baseline apart)
    std::vector<GateEntry> slower;        // every comparison with a "slower" verdict, failing or not
    std::vector<GateEntry> not_testable;  // with effect->why
};

// Regression when any test fails the rule (even if others are not testable);
// else NotTestable when any comparison (the baseline apart) has no verdict;
// else Clear.
GateResult gate(const ComparisonReport& cmp, double fail_pct);

} // namespace eb::suite
