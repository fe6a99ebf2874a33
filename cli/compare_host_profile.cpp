#include "cli/compare_host_profile.h"

#include <fmt/format.h>

#include "cli/export.h"
#include "cli/host_profile.h"
#include "report/flame.h"
#include "report/flame_diff.h"
#include "report/host_diff_text.h"
#include "report/sanitize.h"

namespace eb::cli {

void add_compare_host_profile_option(CLI::App& cmd, std::string& hz) {
    cmd.add_flag(fmt::format("--host-profile{{{}}}", lab::kDefaultHostProfileHz), hz,
                 fmt::format("sample the vCPU threads in every configuration's run (as run --host-profile, every "
                             "other measured batch; the results come from the others) and print per function "
                             "what moved from the first configuration, paired by round; --host-profile=HZ sets "
                             "the rate (default {} Hz)",
                             lab::kDefaultHostProfileHz));
}

CompareHostProfile::CompareHostProfile(const std::string& hz) {
    auto plan = plan_host_profile({hz, ""});
    hz_ = plan->hz;
    start_host_profiler(*plan);  // probes now: a host that cannot sample stops before any round
}

suite::MeasureHooks* CompareHostProfile::starting(size_t) {
    running_ = start_host_profiler({hz_, ""});
    return running_.get();
}

void CompareHostProfile::finished(size_t k) {
    if (rounds_.size() <= k) rounds_.resize(k + 1);
    rounds_[k].push_back(running_ ? running_->profiles() : profile::RoundProfiles{});
    if (running_)
        for (auto& n : running_->notes())
            if (std::find(notes_.begin(), notes_.end(), n) == notes_.end()) notes_.push_back(std::move(n));
    running_.reset();
}

void CompareHostProfile::keep_rounds(size_t n) {
    for (auto& r : rounds_) r.resize(std::min(r.size(), n));
}

std::vector<profile::HostDiff> CompareHostProfile::diffs(const std::vector<std::string>& labels, double tsc_mhz,
                                                         double alpha) const {
    std::vector<profile::HostDiff> out;
    profile::HostDiffOptions o;
    o.alpha = alpha;
    for (size_t k = 1; k < rounds_.size() && k < labels.size(); ++k)
        out.push_back(profile::host_diff(labels[0], labels[k], rounds_[0], rounds_[k], tsc_mhz, o));
    return out;
}

std::string CompareHostProfile::tables(const std::vector<std::string>& labels, double tsc_mhz, double alpha) const {
    std::string out;
    for (const auto& d : diffs(labels, tsc_mhz, alpha)) out += report::render_host_diff(d);
    for (const auto& n : notes_) out += "note: " + report::printable(n) + "\n";
    return out;
}

bool CompareHostProfile::write_html(std::vector<std::pair<std::string, std::string>>& exports,
                                    const report::Comparison& doc, const std::vector<std::string>& labels,
                                    double tsc_mhz) const {
    std::vector<report::DiffFlame> flames;
    for (size_t k = 1; k < rounds_.size() && k < labels.size(); ++k) {
        std::vector<std::string> tests;
        for (const auto& side : {&rounds_[0], &rounds_[k]})
            for (const auto& round : *side)
                for (const auto& p : round)
                    if (std::find(tests.begin(), tests.end(), p.test) == tests.end()) tests.push_back(p.test);
        for (const auto& t : tests)
            if (auto tree = report::diff_flame_tree(t, rounds_[0], rounds_[k], tsc_mhz); !tree.is_null())
                flames.push_back({fmt::format("{}: {} vs {}", t, labels[k], labels[0]), std::move(tree)});
    }
    bool ok = true;
    for (auto it = exports.begin(); it != exports.end();) {
        if (it->first != "html") {
            ++it;
            continue;
        }
        ok &= write_export("html", it->second, [&] { return report::render_compare_html(doc, flames); });
        it = exports.erase(it);
    }
    return ok;
}

} // namespace eb::cli
