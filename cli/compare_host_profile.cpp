#include "cli/compare_host_profile.h"

#include <fmt/format.h>

#include "cli/errors.h"
#include "cli/host_profile.h"
#include "report/flame.h"
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

std::unique_ptr<lab::CompareHostProfiler> start_compare_host_profiler(const std::string& hz) {
    auto plan = plan_host_profile({hz, ""});
    return std::make_unique<lab::CompareHostProfiler>(plan->hz);  // SamplerError is a HostError
}

std::string compare_host_tables(const lab::CompareHostProfiler& host, const std::vector<std::string>& labels,
                                double tsc_mhz, double alpha) {
    std::string out;
    for (const auto& d : host.diffs(labels, tsc_mhz, alpha)) out += report::render_host_diff(d);
    for (const auto& n : host.notes()) out += "note: " + report::printable(n) + "\n";
    return out;
}

bool write_compare_html(std::vector<std::pair<std::string, std::string>>& exports,
                        const lab::CompareHostProfiler& host, const report::Comparison& doc,
                        const std::vector<std::string>& labels, double tsc_mhz) {
    auto flames = host.diff_flames(labels, tsc_mhz);
    return write_html_exports(exports, [&] { return report::render_compare_html(doc, flames); });
}

} // namespace eb::cli
