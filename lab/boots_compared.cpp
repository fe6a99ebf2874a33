#include "lab/boots_compared.h"

#include <filesystem>
#include <fmt/format.h>

namespace eb::lab {

void add_boot_warnings(suite::ComparisonReport& cmp, const AbRuns& runs, bool emulated) {
    for (const auto& s : runs.short_sides) cmp.warnings.push_back(s);
    for (const auto& a : runs.attempts)
        if (!a.failure.empty())
            cmp.warnings.push_back(fmt::format("boot {}{} ({}) failed: {}", a.slot, a.retry ? " (retry)" : "",
                                               a.side ? "B" : "A", a.failure));
    if (runs.interrupted) cmp.warnings.push_back("interrupted: only the boots that finished are compared");
    for (auto& a : cmp.advice)  // boots are driven here: the advice is more of them, not a manual recipe
        if (a.starts_with("to test across boots"))
            a = "to test across boots: boot each side 3 or more times (--boots 3)";
    if (emulated) cmp.warnings.push_back(suite::kEmulatedNote);
}

BootsCompared boot_and_compare(const std::vector<int>& order, const std::function<BootOutcome(int side)>& boot,
                               const std::vector<std::string>& labels, double alpha, bool emulated,
                               const std::atomic<bool>& interrupt, const AbObserver& obs,
                               const std::optional<std::vector<suite::RunReport>>& reference) {
    return compare_booted(run_boots(order, boot, interrupt, obs), labels, alpha, emulated, reference);
}

BootsCompared compare_booted(AbRuns runs, const std::vector<std::string>& labels, double alpha, bool emulated,
                             const std::optional<std::vector<suite::RunReport>>& reference) {
    BootsCompared out;
    out.runs = std::move(runs);
    if (reference) out.sides = {*reference, out.runs.sides[0]};
    else out.sides = {out.runs.sides[0], out.runs.sides[1]};
    for (size_t k = 0; k < out.sides.size(); ++k)
        if (out.sides[k].empty()) {
            out.why_not = fmt::format("not testable: {} has no finished boot", labels[k]);
            return out;
        }
    out.cmp = suite::compare_saved(labels, out.sides, alpha);
    add_boot_warnings(*out.cmp, out.runs, emulated);
    return out;
}

std::string describe(const std::string& kernel, const std::string& append, const std::vector<std::string>& modprobe) {
    std::string d = std::filesystem::path(kernel).filename().string();
    if (!append.empty()) d += " '" + append + "'";
    for (const auto& m : modprobe) d += " [" + m + "]";
    return d;
}

std::vector<std::string> boot_header(const std::vector<std::string>& labels,
                                     const std::vector<std::vector<suite::RunReport>>& sides, const BootPlan& plan) {
    std::vector<std::string> h{fmt::format("booted kernels: {} ({})", plan.accel_why, plan.machine())};
    for (size_t k = 0; k < sides.size(); ++k) {
        std::vector<std::string> ids;
        for (const auto& r : sides[k]) ids.push_back(r.provenance.boot_id);
        h.push_back(fmt::format("  {}: {} boot{}: {}", labels[k], ids.size(), ids.size() == 1 ? "" : "s",
                                fmt::join(ids, " ")));
    }
    return h;
}

} // namespace eb::lab
