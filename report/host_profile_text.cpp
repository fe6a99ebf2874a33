#include "report/host_profile_text.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/sanitize.h"
#include "suite/registry.h"

namespace eb::report {

namespace {

constexpr size_t kNameWidth = 56;

std::string figure(const profile::Estimate& e) { return fmt::format("{:.1f} ±{:.1f}", e.value, e.error); }

// The rows shown: the largest with-children shares, and any self share
// larger than the smallest of those.
std::vector<profile::FunctionShare> top_rows(const profile::TestHostProfile& p, size_t top) {
    auto all = profile::function_shares(p);
    std::vector<profile::FunctionShare> rows(all.begin(), all.begin() + static_cast<ptrdiff_t>(std::min(top, all.size())));
    auto by_self = all;
    std::sort(by_self.begin(), by_self.end(), [](const auto& a, const auto& b) { return a.self > b.self; });
    for (size_t i = 0; i < std::min(top / 2, by_self.size()); ++i) {
        bool shown = std::any_of(rows.begin(), rows.end(), [&](const auto& r) { return r.name == by_self[i].name; });
        if (!shown && by_self[i].self) rows.push_back(by_self[i]);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.total > b.total; });
    return rows;
}

// The host's own instructions and cycles, per iteration and per expected exit.
std::string counts_line(const profile::TestHostProfile& p) {
    if (!p.host_counts || !p.host_counts->iterations)
        return fmt::format("  host-only instructions and cycles: {}\n",
                           p.counts_unavailable.empty() ? "no unsampled batch counted" : p.counts_unavailable);
    const auto& c = *p.host_counts;
    double n = double(c.iterations);
    std::string out = fmt::format("  host-only (exclude_guest) over {} unsampled batch(es): {:.0f} instructions, {:.0f} "
                                  "cycles per iteration", c.batches, double(c.instructions) / n, double(c.cycles) / n);
    const auto* t = suite::find_test(p.test);
    if (t && t->expect.per_iter > 1)
        out += fmt::format(" ({:.0f} instructions, {:.0f} cycles per exit)", double(c.instructions) / n / t->expect.per_iter,
                           double(c.cycles) / n / t->expect.per_iter);
    return out + "\n";
}

std::string header(const profile::TestHostProfile& p, double tsc_mhz) {
    bool cycles = p.event == "cycles";
    std::string event = cycles ? "hardware cycles (NMI) sampling"
                               : fmt::format("cpu-clock sampling (the fallback: {})",
                                             p.fallback_why.empty() ? "no hardware cycles event" : p.fallback_why);
    std::string out = fmt::format("host profile: {} ({} at {} Hz of {} vCPU thread(s), kernel and user; {} samples",
                                  printable(p.test), event, p.frequency_hz, p.threads, p.samples);
    double expected = p.sampled_seconds * p.frequency_hz * std::max<uint32_t>(p.threads, 1);
    if (expected > 0)
        out += fmt::format(" of ~{:.0f} if the threads ran throughout the sampled batches' wall time", expected);
    out += fmt::format(", {} lost", p.counts.lost);
    if (p.counts.throttled) out += fmt::format(", throttled {} time(s)", p.counts.throttled);
    out += ")\n";
    const auto &s = p.sampled, &u = p.plain;
    out += fmt::format("  cost per iteration: {:.1f} cycles ({:.1f} ns) over {} sampled batch(es)", s.cycles_per_iteration(),
                       s.cycles_per_iteration() / tsc_mhz * 1e3, s.count);
    if (u.count && u.cycles_per_iteration() > 0)
        out += fmt::format("; {:.1f} cycles over {} unsampled: sampling overhead {:+.2f}%\n", u.cycles_per_iteration(),
                           u.count, (s.cycles_per_iteration() / u.cycles_per_iteration() - 1) * 100);
    else
        out += "; no unsampled batch to measure the overhead against (--repeats >= 2 gives some)\n";
    if (p.max_batch_iterations)
        out += fmt::format("  included: the harness's ucall exit ends each sampled batch, one exit per {} or more "
                           "iterations; {}\n", p.max_batch_iterations,
                           cycles ? "[guest] is time in guest mode (no host stack)"
                                  : "cpu-clock cannot interrupt code with interrupts off, so its samples there land in "
                                    "[guest mode, or host code with interrupts off]");
    return out + counts_line(p);
}

} // namespace

std::string render_host_profile(const std::vector<profile::TestHostProfile>& profiles,
                                const std::vector<std::string>& notes, double tsc_mhz, size_t top) {
    std::string out;
    for (const auto& p : profiles) {
        out += "\n" + header(p, tsc_mhz);
        if (p.samples == 0) {
            out += "  no samples: the measured batches were too short for the sampling rate (raise --time-goal or "
                   "--repeats, or the frequency)\n";
            continue;
        }
        double cycles = p.sampled.cycles_per_iteration();
        double ns = cycles / tsc_mhz * 1e3;
        out += fmt::format("  {:<{}} {:>8} {:>16} {:>18} {:>8} {:>16} {:>18}\n", "function", kNameWidth, "self n",
                           "self ns/iter", "self cycles/iter", "total n", "total ns/iter", "total cycles/iter");
        for (const auto& r : top_rows(p, top))
            out += fmt::format("  {:<{}} {:>8} {:>16} {:>18} {:>8} {:>16} {:>18}\n", printable_fit(r.name, kNameWidth), kNameWidth, r.self,
                               figure(profile::share_of(r.self, p.samples, ns)),
                               figure(profile::share_of(r.self, p.samples, cycles)), r.total,
                               figure(profile::share_of(r.total, p.samples, ns)),
                               figure(profile::share_of(r.total, p.samples, cycles)));
    }
    if (!profiles.empty())
        out += "\n± is the sampling error (binomial standard error of the share) only; the self column over all "
               "functions adds up to the cost per iteration.\n";
    for (const auto& n : notes) out += "note: " + printable(n) + "\n";
    return out;
}

std::vector<profile::TestHostProfile> saved_host_profiles(const suite::RunReport& r) {
    std::vector<profile::TestHostProfile> out;
    for (const auto& t : r.results)
        if (t.host_samples) out.push_back(*t.host_samples);
    return out;
}

std::string render_saved_host_profile(const suite::RunReport& r, size_t top) {
    auto profiles = saved_host_profiles(r);
    if (profiles.empty()) return "";
    return render_host_profile(profiles, {}, r.host.tsc_mhz, top);
}

} // namespace eb::report
