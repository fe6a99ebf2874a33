// compare --fail-if-slower's decision as every output shows it: the terminal
// (stderr), KTAP and JUnit (the regressed configuration fails, one the gate
// could not test is skipped with why), the HTML page's top.
#pragma once
#include <string>
#include <vector>

#include "suite/gate.h"

namespace eb::report {

struct GateMark {
    std::string test, label;  // the test and the configuration compared with the first
    bool slower = false;      // a "slower" verdict
    bool fails = false;       // slower beyond the gate: a regression
    std::string line;         // "cpuid (b vs first): +2.10% [+1.50%, +2.70%], Holm p ...", or why not testable
};

struct GateView {
    double fail_pct = 0;
    suite::GateOutcome outcome = suite::GateOutcome::Clear;
    size_t family = 0;
    std::vector<GateMark> slower, not_testable;
    // The mark for one test and configuration, or nullptr.
    const GateMark* find(const std::string& test, const std::string& label) const;
    // "--fail-if-slower 5: 3 comparisons gated, 1 slower, 1 failing, 0 not testable"
    std::string summary() const;
};

GateView gate_view(const suite::ComparisonReport& cmp, double fail_pct);

} // namespace eb::report
