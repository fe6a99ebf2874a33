#include "lab/compare_host_profiler.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/flame_diff.h"

namespace eb::lab {

CompareHostProfiler::CompareHostProfiler(uint32_t frequency_hz) : hz_(frequency_hz) {
    profile::HostSampler::probe(hz_);
}

suite::MeasureHooks* CompareHostProfiler::starting(size_t) {
    running_ = std::make_unique<HostProfiler>(hz_);
    return running_.get();
}

void CompareHostProfiler::finished(size_t k) {
    if (rounds_.size() <= k) rounds_.resize(k + 1);
    rounds_[k].push_back(running_ ? running_->profiles() : profile::RoundProfiles{});
    if (running_)
        for (auto& n : running_->notes())
            if (std::find(notes_.begin(), notes_.end(), n) == notes_.end()) notes_.push_back(std::move(n));
    running_.reset();  // its sampler closed at its last test's end already
}

void CompareHostProfiler::keep_rounds(size_t n) {
    for (auto& r : rounds_) r.resize(std::min(r.size(), n));
}

std::vector<profile::HostDiff> CompareHostProfiler::diffs(const std::vector<std::string>& labels, double tsc_mhz,
                                                          double alpha) const {
    std::vector<profile::HostDiff> out;
    profile::HostDiffOptions o;
    o.alpha = alpha;
    for (size_t k = 1; k < rounds_.size() && k < labels.size(); ++k)
        out.push_back(profile::host_diff(labels[0], labels[k], rounds_[0], rounds_[k], tsc_mhz, o));
    return out;
}

std::vector<report::DiffFlame> CompareHostProfiler::diff_flames(const std::vector<std::string>& labels,
                                                                double tsc_mhz) const {
    std::vector<report::DiffFlame> flames;
    for (size_t k = 1; k < rounds_.size() && k < labels.size(); ++k) {
        std::vector<std::string> tests;  // in the order they first ran, on either side
        for (const auto& side : {&rounds_[0], &rounds_[k]})
            for (const auto& round : *side)
                for (const auto& p : round)
                    if (std::find(tests.begin(), tests.end(), p.test) == tests.end()) tests.push_back(p.test);
        for (const auto& t : tests)
            if (auto tree = report::diff_flame_tree(t, rounds_[0], rounds_[k], tsc_mhz); !tree.is_null())
                flames.push_back({fmt::format("{}: {} vs {}", t, labels[k], labels[0]), std::move(tree)});
    }
    return flames;
}

} // namespace eb::lab
