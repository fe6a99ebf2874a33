#include "report/gate_view.h"

#include <algorithm>

#include <fmt/format.h>

namespace eb::report {

namespace {

std::string effect_line(const suite::GateEntry& g, double fail_pct) {
    const auto& e = *g.effect;
    return fmt::format("{} ({} vs first): {:+.2f}% [{:+.2f}%, {:+.2f}%], Holm p {:.3g}; slowdown beyond {:g}%: Holm "
                       "p {:.3g}", g.test, g.label, (e.ratio - 1) * 100, (e.ratio_ci.lo - 1) * 100,
                       (e.ratio_ci.hi - 1) * 100, e.p_holm, fail_pct, g.p_over);
}

} // namespace

const GateMark* GateView::find(const std::string& test, const std::string& label) const {
    for (const auto* list : {&slower, &not_testable})
        for (const auto& m : *list)
            if (m.test == test && m.label == label) return &m;
    return nullptr;
}

std::string GateView::summary() const {
    auto failing = std::count_if(slower.begin(), slower.end(), [](const auto& s) { return s.fails; });
    return fmt::format("--fail-if-slower {:g}: {} comparison{} gated, {} slower, {} failing, {} not testable",
                       fail_pct, family, family == 1 ? "" : "s", slower.size(), failing, not_testable.size());
}

GateView gate_view(const suite::ComparisonReport& cmp, double fail_pct) {
    auto g = suite::gate(cmp, fail_pct);
    GateView v{fail_pct, g.outcome, g.family, {}, {}};
    for (const auto& s : g.slower) v.slower.push_back({s.test, s.label, true, s.fails, effect_line(s, fail_pct)});
    for (const auto& n : g.not_testable)
        v.not_testable.push_back({n.test, n.label, false, false,
                                  fmt::format("{} ({} vs first) is not testable: {}", n.test, n.label, n.effect->why)});
    return v;
}

} // namespace eb::report
