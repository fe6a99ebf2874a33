#include "suite/stop_rule.h"

#include <algorithm>
#include <cmath>

#include "stats/ab.h"

namespace eb::suite {

uint64_t planned_rounds(const ComparisonReport& pilot, double precision, uint64_t cap) {
    double need = double(kPilotRounds);
    double h = std::log1p(precision);
    for (const auto& t : pilot.tests)
        for (const auto& e : t.vs_first) {
            if (e.verdict == Verdict::NotTestable) return cap;
            double s0 = e.se * std::sqrt(double(e.units_a));  // the per-round SD of the log ratios
            double q = stats::t_quantile(1 - pilot.alpha / 2, double(e.units_a) - 1);
            need = std::max(need, std::ceil(q * q * s0 * s0 / (h * h)));
        }
    return std::min<uint64_t>(cap, uint64_t(std::min(need, 1e9)));
}

} // namespace eb::suite
