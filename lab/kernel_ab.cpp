#include "lab/kernel_ab.h"

#include <fmt/format.h>

namespace eb::lab {

std::vector<int> counterbalanced(unsigned n) {
    static constexpr int kPattern[] = {0, 1, 1, 0};
    std::vector<int> out;
    for (unsigned i = 0; i < 2 * n; ++i) out.push_back(kPattern[i % 4]);
    return out;
}

AbRuns run_boots(const std::vector<int>& order, const std::function<BootOutcome(int side)>& boot, const std::atomic<bool>& interrupt,
                 const AbObserver& observer) {
    AbRuns out;
    double spent = 0;
    unsigned finished = 0;
    for (unsigned i = 0; i < order.size() && !out.interrupted; ++i) {
        int side = order[i];
        for (int attempt = 0; attempt < 2; ++attempt) {
            double eta = finished ? spent / finished * double(order.size() - i) : -1;
            if (observer.starting) observer.starting(i + 1, unsigned(order.size()), side, eta);
            auto o = boot(side);
            BootAttempt a{side, i + 1, attempt == 1, o.boot_id, o.failure, o.seconds};
            out.attempts.push_back(a);
            if (observer.done) observer.done(a, o);
            spent += o.seconds;
            ++finished;
            bool kept = o.ok() && o.report;  // a boot that finished counts, interrupt or not
            if (kept) out.sides[side].push_back(std::move(*o.report));
            if (o.interrupted || interrupt.load()) {
                out.interrupted = true;
                break;
            }
            if (kept) break;
            if (attempt == 1)
                out.short_sides.push_back(fmt::format("{}: one boot short: boot {} of {} failed twice ({})",
                                                      side ? "B" : "A", i + 1, order.size(), o.failure));
        }
    }
    return out;
}

} // namespace eb::lab
