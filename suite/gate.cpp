#include "suite/gate.h"

#include <algorithm>
#include <cmath>

#include "stats/ab.h"
#include "stats/family.h"

namespace eb::suite {

GateResult gate(const ComparisonReport& cmp, double fail_pct) {
    GateResult g;
    std::vector<GateEntry> tested;
    std::vector<double> p_over;
    double bound = std::log1p(fail_pct / 100);
    for (const auto& t : cmp.tests) {
        if (t.test == "baseline") continue;  // a control, reported apart
        for (size_t i = 0; i < t.vs_first.size(); ++i) {
            const Effect& e = t.vs_first[i];
            GateEntry entry{t.test, t.configs[i + 1].label, &e};
            if (e.verdict == Verdict::NotTestable) {
                g.not_testable.push_back(entry);
                continue;
            }
            tested.push_back(entry);
            p_over.push_back(stats::t_upper((e.log_estimate - bound) / e.se, e.df));
        }
    }
    g.family = tested.size();
    auto holm = stats::holm_adjust(p_over);
    for (size_t i = 0; i < tested.size(); ++i) {
        auto& entry = tested[i];
        entry.p_over = holm[i];
        if (entry.effect->verdict != Verdict::Slower) continue;
        entry.fails = entry.p_over < cmp.alpha / 2;
        g.slower.push_back(entry);
    }
    bool fails = std::any_of(g.slower.begin(), g.slower.end(), [](const GateEntry& e) { return e.fails; });
    g.outcome = fails ? GateOutcome::Regression : !g.not_testable.empty() ? GateOutcome::NotTestable
                                                                          : GateOutcome::Clear;
    return g;
}

} // namespace eb::suite
