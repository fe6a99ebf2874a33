// compare --host-profile[=HZ] (and recipe run): a host profiler for each
// configuration's run in each round, kept round by round; after the rounds,
// per function what moved from the first configuration to each other one
// (profile/host_diff.h), as a table and as differential flame graphs in the
// HTML export.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lab/compare_live.h"
#include "lab/host_profiler.h"
#include "profile/host_diff.h"
#include "report/exporter.h"
#include "suite/measure_hooks.h"

namespace eb::cli {

void add_compare_host_profile_option(CLI::App& cmd, std::string& hz);

class CompareHostProfile : public lab::RoundHooks {
public:
    // Throws UsageError for a bad HZ, HostError (exit 3) when this process may not sample here.
    explicit CompareHostProfile(const std::string& hz);

    // A fresh profiler for configuration k's run in the current round.
    suite::MeasureHooks* starting(size_t k) override;
    // That run ended: its profiles are configuration k's next round.
    void finished(size_t k) override;
    // Keeps the first n rounds (the rest were cut short, or a pilot set aside).
    void keep_rounds(size_t n) override;

    // Every configuration against the first.
    std::vector<profile::HostDiff> diffs(const std::vector<std::string>& labels, double tsc_mhz, double alpha) const;
    std::string tables(const std::vector<std::string>& labels, double tsc_mhz, double alpha) const;
    // Writes the --export-html files with the differential flame graphs and
    // takes them out of `exports`; false when one could not be written.
    bool write_html(std::vector<std::pair<std::string, std::string>>& exports, const report::Comparison& doc,
                    const std::vector<std::string>& labels, double tsc_mhz) const;

private:
    uint32_t hz_;
    std::unique_ptr<lab::HostProfiler> running_;
    std::vector<std::vector<profile::RoundProfiles>> rounds_;  // [configuration][round]
    std::vector<std::string> notes_;
};

} // namespace eb::cli
