// compare --time-budget / --precision as a two-stage design: a pilot of
// kPilotRounds fixes how many rounds to run, and is then set aside: the rounds
// analysed come after it, so their number does not depend on their own
// spread, and their t interval keeps its coverage. Stopping when the observed
// interval happens to look narrow, or reusing the pilot in the analysis,
// favours samples whose spread was underestimated (measured in
// tests/unit/compare_sim_test.cpp). Pure.
#pragma once
#include <cstdint>

#include "suite/compare.h"

namespace eb::suite {

inline constexpr uint64_t kPilotRounds = 5;

// Rounds so that every testable ratio's (1 - alpha) interval has a relative
// half-width of about `precision` (Stein: n = (t_{1-alpha/2, n0-1} * s0 / h)^2
// from each pilot's per-round SD s0 on the log scale), the most any
// comparison needs, at least the pilot's rounds and at most `cap`. `cap` when
// some comparison is not testable after the pilot.
uint64_t planned_rounds(const ComparisonReport& pilot, double precision, uint64_t cap);

} // namespace eb::suite
