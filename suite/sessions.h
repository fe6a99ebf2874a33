// The order of a run's sessions, apart from the machine that runs each test,
// so that unit tests drive it with a fake: every test once per session, each
// session shuffled, a test's calibrated batch size handed to its later
// sessions, and a hang learnt once.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "suite/result.h"
#include "suite/spec.h"

namespace eb::suite {

// Runs one session of a test in a fresh VM; `reuse_batch` is the batch size
// an earlier session calibrated (0: none, calibrate from scratch).
using RunOne = std::function<TestResult(const TestSpec& t, uint64_t reuse_batch)>;

// Runs `tests` s.sessions times, each session in a fresh order when there
// are several (s.order_seed); stops early on interrupt. A test that was
// skipped is not run again; one that hung is not either, unless
// s.retry_hung, and its result says in which session it hung. `done` sees
// each session's result, `starting` each test before it runs; the returned
// results merge the sessions, in `tests` order.
std::vector<TestResult> run_sessions(const std::vector<const TestSpec*>& tests, const RunSettings& s,
                                     const std::atomic<bool>& interrupt, const RunOne& run_one,
                                     const std::function<void(const TestResult&)>& done = {},
                                     const std::function<void(const TestSpec&)>& starting = {});

} // namespace eb::suite
