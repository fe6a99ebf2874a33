// Progress of a run on a terminal: the test running now, n/N done and an
// ETA, on one line that is rewritten; a finished test leaves a line behind.
// Quiet when stderr is not a terminal.
#pragma once
#include <chrono>
#include <cstddef>
#include <map>
#include <string>

#include "lab/vocabulary.h"

namespace eb::cli {

class Progress {
public:
    // `tests` tests, each run in `sessions` sessions; a hung test is not
    // rerun in the later ones unless `retry_hung`.
    Progress(size_t tests, uint32_t sessions, bool enabled, bool retry_hung = false);
    void starting(const std::string& test);
    void done(const lab::TestResult& r);

    // How long the rest will take at the pace so far; "" before the first.
    static std::string eta(double elapsed_s, size_t done, size_t total);
    // "12 s", "3 min 05 s".
    static std::string duration_text(double seconds);

private:
    size_t total_, done_ = 0;
    uint32_t sessions_;
    bool enabled_, retry_hung_;
    std::map<std::string, uint32_t> runs_;  // sessions each test has run
    std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

} // namespace eb::cli
