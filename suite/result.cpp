#include "suite/result.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

#include "stats/ab.h"
#include "stats/summary.h"

namespace eb::suite {

namespace {
constexpr std::pair<Status, const char*> kNames[] = {
    {Status::Ok, "ok"},           {Status::Unverified, "unverified"},
    {Status::NoExit, "no-exit"},  {Status::Mismatch, "mismatch"},
    {Status::Failed, "failed"},   {Status::Hung, "hung"},
    {Status::Skipped, "skipped"}, {Status::Error, "error"},
    {Status::Interrupted, "interrupted"},
};
} // namespace

const char* status_name(Status s) {
    for (auto [k, n] : kNames)
        if (k == s) return n;
    return "?";
}

std::optional<Status> status_from_name(const std::string& s) {
    for (auto [k, n] : kNames)
        if (s == n) return k;
    return std::nullopt;
}

bool is_failure(Status s) {
    return s == Status::Mismatch || s == Status::Failed || s == Status::Hung || s == Status::Error;
}

bool knob_not_applied(const std::string& warning) { return warning.rfind(kKnobNotApplied, 0) == 0; }

int severity(Status s) { return is_failure(s) ? 3 : s == Status::Skipped ? 2 : s == Status::Interrupted ? 1 : 0; }

std::vector<double> all_repeats(const TestResult& t) {
    std::vector<double> out;
    for (const auto& s : t.sessions) out.insert(out.end(), s.samples.begin(), s.samples.end());
    return out;
}

namespace {

double session_cv(const std::vector<double>& xs) {
    return xs.size() >= 2 && stats::mean(xs) != 0 ? stats::cv(xs) : 0;
}

} // namespace

std::optional<Headline> headline(const TestResult& t) {
    if (t.sessions.empty()) return std::nullopt;
    Headline h;
    h.sessions = t.sessions.size();
    std::vector<double> cvs, logs;
    for (const auto& s : t.sessions) {
        cvs.push_back(session_cv(s.samples));
        logs.push_back(std::log(stats::median(s.samples)));
    }
    h.within_cv = stats::median(cvs);
    if (h.sessions == 1) {
        const auto& xs = t.sessions[0].samples;
        h.cycles = stats::median(xs);
        h.ci = stats::median_ci(xs);
        h.coverage = stats::median_ci_coverage(xs.size());
        return h;
    }
    auto t_on_logs = stats::one_sample_t(logs);
    h.between_sessions = true;
    h.cycles = std::exp(t_on_logs.estimate);
    h.ci = {std::exp(t_on_logs.ci.lo), std::exp(t_on_logs.ci.hi)};
    h.coverage = 0.95;
    h.between_cv = stats::stddev(logs);
    return h;
}

TestResult merge_sessions(std::vector<TestResult> per_session) {
    if (per_session.empty()) throw std::invalid_argument("merge_sessions: no session");
    // What finished is kept; a session cut short by Ctrl-C only counts when nothing else ran.
    size_t n = per_session.size();
    WallSplit wall;  // every session's time, the dropped one's too
    for (const auto& r : per_session) wall += r.wall;
    if (n > 1 && per_session.back().status == Status::Interrupted) per_session.pop_back();
    TestResult out = std::move(per_session[0]);
    out.wall = wall;
    double irqs = out.irqs_per_iter.value_or(0);
    for (size_t k = 1; k < per_session.size(); ++k) {
        auto& r = per_session[k];
        if (severity(r.status) > severity(out.status)) {
            out.status = r.status;
            out.detail = fmt::format("session {} of {}: {}", k + 1, n, r.detail);
            out.exits = r.exits;
        }
        out.sessions.insert(out.sessions.end(), r.sessions.begin(), r.sessions.end());
        out.ipi_latency_cycles.insert(out.ipi_latency_cycles.end(), r.ipi_latency_cycles.begin(),
                                      r.ipi_latency_cycles.end());
        out.per_exit_cycles.insert(out.per_exit_cycles.end(), r.per_exit_cycles.begin(), r.per_exit_cycles.end());
        for (auto* list : {&out.host_checks, &out.warnings})
            for (const auto& line : list == &out.warnings ? r.warnings : r.host_checks)
                if (std::find(list->begin(), list->end(), line) == list->end()) list->push_back(line);
        irqs += r.irqs_per_iter.value_or(0);
        out.start_ns = std::min(out.start_ns, r.start_ns);
        out.end_ns = std::max(out.end_ns, r.end_ns);
        out.all_iterations += r.all_iterations;
        if (r.user_times) {
            if (!out.user_times) out.user_times.emplace();
            out.user_times->totals += r.user_times->totals;
            out.user_times->iterations += r.user_times->iterations;
        }
        out.wall_seconds += r.wall_seconds;
    }
    if (out.irqs_per_iter) out.irqs_per_iter = irqs / double(per_session.size());
    return out;
}

WallSplit& WallSplit::operator+=(const WallSplit& o) {
    measured += o.measured;
    warmup += o.warmup;
    vm_start += o.vm_start;
    teardown += o.teardown;
    watchdog += o.watchdog;
    trace_verify += o.trace_verify;
    setup += o.setup;
    other += o.other;
    total += o.total;
    return *this;
}

WallSplit account_run(const std::vector<TestResult>& results, int64_t total_ns, int64_t trace_verify_ns,
                      int64_t setup_ns) {
    WallSplit run;
    for (const auto& t : results) run += t.wall;
    run.trace_verify += trace_verify_ns;
    run.setup += setup_ns;
    run.total = total_ns;
    // The tests' own "other" (ucalls between batches) and the time outside
    // any test: whatever the named phases leave.
    run.other = total_ns - run.named();
    return run;
}

std::optional<double> baseline_cycles(const RunReport& r) {
    for (const auto& t : r.results)
        if (t.name == "baseline" && !is_failure(t.status))
            if (auto h = headline(t)) return h->cycles;
    return std::nullopt;
}

std::optional<double> per_exit_overhead(const RunReport& r) {
    for (const auto& t : r.results)
        if (t.name == "baseline" && !t.per_exit_cycles.empty() && !is_failure(t.status))
            return stats::median(t.per_exit_cycles);
    return std::nullopt;
}

std::optional<UserspaceSplit> userspace_split(const UserTimes& u, double cycles_per_iter,
                                              std::optional<double> baseline) {
    if (!u.totals.exits || !u.iterations) return std::nullopt;
    UserspaceSplit s;
    s.exits = u.totals.exits;
    s.vmm_p50 = u.totals.quantile(0.5);
    s.vmm_p99 = u.totals.quantile(0.99);
    s.vmm_mean = u.totals.vmm_mean();
    // The figure is a mean over the batch, so the mean is what it splits into.
    double exits_per_iter = double(u.totals.exits) / double(u.iterations);
    s.exit_cycles = (cycles_per_iter - baseline.value_or(0)) / exits_per_iter;
    s.kernel_cycles = s.exit_cycles - s.vmm_mean;
    return s;
}

void split_userspace_exits(RunReport& r) {
    auto base = baseline_cycles(r);
    for (auto& t : r.results) {
        auto hl = headline(t);
        if (t.user_times && hl && !is_failure(t.status))
            t.userspace_split = userspace_split(*t.user_times, hl->cycles, t.name == "baseline" ? std::nullopt : base);
    }
}

std::string status_label(const TestResult& t) {
    if (t.status == Status::Ok && t.exits.source.rfind(kTraceSource, 0) == 0) return "ok (trace)";
    return status_name(t.status);
}

std::string status_text(const TestResult& t) {
    const auto& src = t.exits.source;
    auto colon = src.find(": ", std::string_view(kTraceSource).size());
    if (src.rfind(kTraceSource, 0) != 0 || !t.exits.measured || colon == std::string::npos) return status_label(t);
    auto what = src.substr(std::string_view(kTraceSource).size(), colon - std::string_view(kTraceSource).size());
    return fmt::format("{} (trace: {} {:.2f}/iter)", status_name(t.status), what, *t.exits.measured);
}

} // namespace eb::suite
