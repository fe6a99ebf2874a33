#include "suite/calibration.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

#include "stats/summary.h"
#include "suite/compare_side.h"

namespace eb::suite {

std::string settings_key(const RunSettings& s) {
    std::vector<std::string> msrs;
    for (const auto& m : s.guest_msrs) msrs.push_back(fmt::format("{:#x}={:#x}", m.index, m.value));
    auto tri = [](const std::optional<bool>& b) { return b ? (*b ? "on" : "off") : "-"; };
    std::string pin = s.pin_auto ? "auto" : fmt::format("{}", fmt::join(s.pin, ","));
    return fmt::format("batch={} time_goal={:g} warmup={} smp={} cpu={} pin={} apic={} msr={} efer=nx:{},sce:{} "
                       "cpuid={} baseline={} per_exit={} profile={}",
                       s.iterations ? std::to_string(*s.iterations) : "adaptive", s.iterations ? 0 : s.time_goal_s,
                       s.warmup, s.smp, s.cpu ? std::to_string(*s.cpu) : "-", pin.empty() ? "-" : pin, s.apic,
                       msrs.empty() ? "-" : fmt::format("{}", fmt::join(msrs, ",")), tri(s.guest_efer.nx),
                       tri(s.guest_efer.sce), s.cpuid_edits.empty() ? "-" : s.cpuid_edits, int(s.baseline),
                       int(s.per_exit), int(s.profile));
}

std::string run_options(const RunSettings& s) {
    std::vector<std::string> w;
    if (s.iterations) w.push_back(fmt::format("-n {}", *s.iterations));
    else if (s.time_goal_s != RunSettings{}.time_goal_s) w.push_back(fmt::format("--time-goal {:g}s", s.time_goal_s));
    w.push_back(fmt::format("--sessions {} -r {}", s.sessions, s.repeats));
    if (s.warmup) w.push_back(fmt::format("--warmup {}", s.warmup));
    if (s.smp != 1) w.push_back(fmt::format("--smp {}", s.smp));
    if (s.cpu) w.push_back(fmt::format("--cpu {}", *s.cpu));
    if (s.pin_auto) w.push_back("--pin auto");
    else if (!s.pin.empty()) w.push_back(fmt::format("--pin {}", fmt::join(s.pin, ",")));
    if (s.apic != "auto") w.push_back("--apic " + s.apic);
    for (const auto& m : s.guest_msrs) w.push_back(fmt::format("--guest-msr {:#x}={:#x}", m.index, m.value));
    std::vector<std::string> efer;
    if (s.guest_efer.nx) efer.push_back(*s.guest_efer.nx ? "nx=on" : "nx=off");
    if (s.guest_efer.sce) efer.push_back(*s.guest_efer.sce ? "sce=on" : "sce=off");
    if (!efer.empty()) w.push_back(fmt::format("--guest-efer {}", fmt::join(efer, ",")));
    if (!s.cpuid_edits.empty()) w.push_back("--cpuid=" + s.cpuid_edits);
    if (!s.baseline) w.push_back("--no-baseline");
    if (s.per_exit) w.push_back("--per-exit");
    if (s.profile) w.push_back("--profile");
    return fmt::format("{}", fmt::join(w, " "));
}

CalibrationIdentity identity_of(const RunReport& r) {
    return {r.provenance.hostname, r.host.kernel_release, vmm::backend_name(r.host.backend), r.host.cpu_model,
            settings_key(r.settings)};
}

std::vector<std::string> mismatches(const CalibrationIdentity& cal, const CalibrationIdentity& run) {
    std::vector<std::string> out;
    std::pair<const char*, const std::string CalibrationIdentity::*> fields[] = {
        {"host", &CalibrationIdentity::hostname},      {"kernel.release", &CalibrationIdentity::kernel_release},
        {"kvm.backend", &CalibrationIdentity::backend}, {"cpu.model", &CalibrationIdentity::cpu_model},
        {"settings", &CalibrationIdentity::settings}};
    for (auto [name, f] : fields)
        if (cal.*f != run.*f) out.push_back(fmt::format("{}: '{}' (calibration) vs '{}'", name, cal.*f, run.*f));
    return out;
}

std::vector<std::string> why_not_plan(const Calibration& c, const RunReport& r) {
    return mismatches(c.identity, identity_of(r));
}

Calibrations lend(const Calibration& c) {
    Calibrations out;
    for (const auto& t : c.tests)
        out[t.test] = {t.levels, t.costs, c.identity, c.timestamp_utc, c.boot_id, c.runs, c.sessions, c.repeats, c.id};
    return out;
}

namespace {

// Seconds per level from the runs: a repeat is its batch (cycles per
// iteration times the batch over the TSC rate); a session is the test's wall
// time per session less its repeats (the VM, the warm-up); a run is the
// process's wall time less every test's.
stats::Costs costs_of(const std::vector<RunReport>& runs, const std::vector<double>& process_s,
                      const std::string& test) {
    std::vector<double> rep, ses, run;
    for (size_t k = 0; k < runs.size(); ++k) {
        double inside = 0, hz = runs[k].host.tsc_mhz * 1e6;
        for (const auto& t : runs[k].results) {
            inside += t.wall_seconds;
            if (t.name != test || t.sessions.empty()) continue;
            double reps = 0, batch_s = 0;
            for (const auto& s : t.sessions) {
                reps += double(s.samples.size());
                if (hz > 0 && !s.samples.empty()) batch_s += stats::median(s.samples) * double(s.iterations) / hz;
            }
            double per_rep = batch_s / double(t.sessions.size());
            rep.push_back(per_rep);
            ses.push_back(std::max(0.0, t.wall_seconds - reps * per_rep) / double(t.sessions.size()));
        }
        if (k < process_s.size()) run.push_back(std::max(0.0, process_s[k] - inside));
    }
    auto med = [](const std::vector<double>& v) { return v.empty() ? 0.0 : stats::median(v); };
    return {med(run), med(ses), med(rep)};
}

bool usable(const TestResult& t) { return !is_failure(t.status) && t.status != Status::Skipped; }

// The runs without the tests that failed, hung or were skipped in them: a
// test keeps its other runs (copies made only when there is one to drop).
std::vector<RunReport> without_failures(const std::vector<RunReport>& runs) {
    std::vector<RunReport> out;
    for (const auto& r : runs) {
        auto& c = out.emplace_back(r);
        std::erase_if(c.results, [](const TestResult& t) { return !usable(t); });
    }
    return out;
}

} // namespace

Calibration calibrate_from(const std::vector<RunReport>& runs, const std::vector<double>& process_s) {
    if (runs.size() < 2) throw std::invalid_argument("a calibration needs two or more runs");
    Calibration c;
    const auto& first = runs.front();
    c.timestamp_utc = first.provenance.timestamp_utc;
    c.boot_id = first.provenance.boot_id;
    c.tool_version = first.tool_version;
    c.identity = identity_of(first);
    c.runs = runs.size();
    c.sessions = first.settings.sessions;
    c.repeats = first.settings.repeats;
    bool all_usable = std::all_of(runs.begin(), runs.end(), [](const RunReport& r) {
        return std::all_of(r.results.begin(), r.results.end(), usable);
    });
    std::vector<RunReport> clean = all_usable ? std::vector<RunReport>{} : without_failures(runs);
    auto data = detail::collect(std::vector<const std::vector<RunReport>*>{all_usable ? &runs : &clean});
    for (size_t i = 0; i < data.order.size(); ++i) {
        const auto& side = data.by_test[i][0];
        if (!side.seen || side.imported) continue;
        TestCalibration t;
        t.test = data.order[i];
        std::vector<std::vector<std::vector<double>>> nest;
        for (const auto& r : side.runs) {
            if (r.session_logs.empty()) continue;
            nest.push_back(r.repeat_logs);
            t.session_logs.push_back(r.session_logs);
        }
        if (nest.size() < 2) continue;
        // Compare's unit statistic (log of each session's median cost), not the median of the logs.
        t.levels = stats::estimate_levels(nest, t.session_logs);
        t.costs = costs_of(runs, process_s, t.test);
        c.tests.push_back(std::move(t));
    }
    return c;
}

std::string invalid_reason(const TestCalibration& t) {
    const auto& l = t.levels;
    const std::pair<const char*, const stats::Component*> levels[] = {
        {"repeat", &l.repeat}, {"session", &l.session}, {"run", &l.run}, {"run_mean", &l.run_mean},
        {"session_median", &l.session_median}};
    for (auto [name, c] : levels) {
        if (!std::isfinite(c->var) || c->var < 0) return fmt::format("the {} variance is {}", name, c->var);
        if (!std::isfinite(c->df) || c->df < 0) return fmt::format("the {} df is {}", name, c->df);
    }
    if (!(l.run_mean.df > 0)) return fmt::format("the run_mean df is {} (a calibration needs two or more runs)", l.run_mean.df);
    if (l.runs < 2) return fmt::format("it used {} run(s), fewer than two", l.runs);
    if (!(l.inv_sessions > 0 && l.inv_sessions <= 1)) return fmt::format("its mean 1/sessions is {}", l.inv_sessions);
    if (!(l.repeats >= 1 && std::isfinite(l.repeats))) return fmt::format("its mean repeats is {}", l.repeats);
    for (double c : {t.costs.run, t.costs.session, t.costs.repeat})
        if (!std::isfinite(c) || c < 0) return fmt::format("a level's cost is {} s", c);
    return "";
}

} // namespace eb::suite
