#include "report/wall_text.h"

#include <fmt/format.h>
#include <vector>

namespace eb::report {

namespace {

std::string phase(const char* name, int64_t ns, int64_t total) {
    double pct = total > 0 ? 100.0 * double(ns) / double(total) : 0;
    return fmt::format("{} {:.2f} s ({:.0f}%)", name, double(ns) / 1e9, pct);
}

// "batch size: reused in 38 of 40 later sessions ...", or "" with nothing to reuse.
std::string reuse_line(const suite::RunReport& r) {
    if (r.settings.iterations) return "";  // fixed size: nothing was calibrated
    size_t later = 0, reused = 0;
    for (const auto& t : r.results)
        for (size_t k = 1; k < t.sessions.size(); ++k) {
            ++later;
            reused += t.sessions[k].batch_reused;
        }
    if (!later) return "";
    return fmt::format("  batch size: an earlier session's reused in {} of {} later test sessions (its first batch, "
                       "discarded, met the time goal); calibrated again in {}\n", reused, later, later - reused);
}

std::string hang_lines(const suite::RunReport& r) {
    std::vector<std::string> names;
    for (const auto& t : r.results)
        if (t.sessions_not_rerun)
            names.push_back(fmt::format("{} (hung in session {}, {} later skipped)", t.name, t.hung_in_session,
                                        t.sessions_not_rerun));
    if (names.empty()) return "";
    return fmt::format("  not rerun after a hang (--retry-hung reruns them): {}\n", fmt::join(names, ", "));
}

} // namespace

std::string wall_time_text(const suite::RunReport& r) {
    if (!r.wall_time) return "";
    const auto& w = *r.wall_time;
    std::string out = fmt::format(
        "wall time {:.2f} s: {}, {}, {},\n  {}, {}, {}, {}, {}\n", double(w.total) / 1e9,
        phase("measured batches", w.measured, w.total), phase("warm-up/calibration", w.warmup, w.total),
        phase("VM start", w.vm_start, w.total), phase("teardown", w.teardown, w.total),
        phase("trace verification", w.trace_verify, w.total), phase("set-up", w.setup, w.total),
        phase("watchdog waits", w.watchdog, w.total), phase("other", w.other, w.total));
    return out + reuse_line(r) + hang_lines(r);
}

} // namespace eb::report
