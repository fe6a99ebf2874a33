// The A/B across boots: two boot plans (two kernels, or one kernel with two
// command lines or module parameters) booted in a counterbalanced order
// (A B B A A B B A ...), one run per boot, so that each boot is one unit of
// the saved-results comparison (suite/compare.h chooses the boot as the unit
// when the runs' boot ids differ).
#pragma once
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "lab/boot.h"
#include "suite/result.h"

namespace eb::lab {

// Side (0: A, 1: B) of each boot in order: A B B A, repeated, cut at 2n.
std::vector<int> counterbalanced(unsigned n);

// One boot as it went: a failed one is retried once.
struct BootAttempt {
    int side = 0;
    unsigned slot = 0;          // 1 to 2n: its place in the order
    bool retry = false;
    std::string boot_id, failure;
    double seconds = 0;
};

struct AbRuns {
    std::vector<suite::RunReport> sides[2];
    std::vector<BootAttempt> attempts;
    std::vector<std::string> short_sides;  // "B: 1 boot short (slot 3 failed twice: ...)"
    bool interrupted = false;
};

struct AbObserver {
    // Before each boot: its slot, of `total`, and its side; an ETA from the boots so far (<0: unknown).
    std::function<void(unsigned slot, unsigned total, int side, double eta_s)> starting;
    std::function<void(const BootAttempt&, const BootOutcome&)> done;
};

// Boots once per entry of `order` (a side each) through `boot(side)`,
// retrying a failed boot once; stops at `interrupt`, keeping the boots that
// finished.
AbRuns run_boots(const std::vector<int>& order, const std::function<BootOutcome(int side)>& boot, const std::atomic<bool>& interrupt,
                 const AbObserver& observer = {});

} // namespace eb::lab
