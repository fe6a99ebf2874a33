// compare --host-profile's use case (and recipe run's): a host profiler for
// each configuration's run in each round, kept round by round, so the round
// stays the unit; after the rounds, per function what moved from the first
// configuration to each other one (profile/host_diff.h), and the trees of the
// differential flame graphs. The command line parses the rate and prints.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lab/compare_live.h"
#include "lab/host_profiler.h"
#include "profile/host_diff.h"
#include "report/flame.h"
#include "suite/measure_hooks.h"

namespace eb::lab {

class CompareHostProfiler final : public RoundHooks {
public:
    // Throws profile::SamplerError at once when this process may not sample
    // here, so such a host stops before any round.
    explicit CompareHostProfiler(uint32_t frequency_hz);

    // A fresh profiler for configuration k's run in the current round.
    suite::MeasureHooks* starting(size_t k) override;
    // That run ended: its profiles are configuration k's next round.
    void finished(size_t k) override;
    // Keeps the first n rounds (the rest were cut short, or a pilot set aside).
    void keep_rounds(size_t n) override;

    // Every configuration against the first (`labels` in configuration order).
    std::vector<profile::HostDiff> diffs(const std::vector<std::string>& labels, double tsc_mhz, double alpha) const;
    // A differential flame graph per test and configuration after the first.
    std::vector<report::DiffFlame> diff_flames(const std::vector<std::string>& labels, double tsc_mhz) const;
    // What hid names, and errors met while sampling, each once.
    const std::vector<std::string>& notes() const { return notes_; }

private:
    uint32_t hz_;
    std::unique_ptr<HostProfiler> running_;
    std::vector<std::vector<profile::RoundProfiles>> rounds_;  // [configuration][round]
    std::vector<std::string> notes_;
};

} // namespace eb::lab
