// The human report: one row per test, then the notes the rows refer to.
#include <fmt/format.h>
#include <map>
#include <sstream>

#include "report/compare.h"
#include "report/exporter.h"
#include "suite/registry.h"
#include "report/sanitize.h"
#include "report/wall_text.h"
#include "report/grids.h"
#include "report/histogram_text.h"
#include "report/host_diff_text.h"
#include "report/profile_text.h"
#include "stats/inference.h"
#include "stats/summary.h"

namespace eb::report {

namespace {

// The failures a known limitation of the backend explains: each is still in
// the table with its reason; this says they do not fail the run.
std::string expected_failures_line(const suite::RunReport& r) {
    std::vector<std::string> names;
    for (const auto& t : r.results)
        if (auto why = suite::expected_failure(r, t))  // the reason, where the test's own detail lacks it
            names.push_back(t.detail.find(*why) == std::string::npos ? t.name + " (" + *why + ")" : t.name);
    if (names.empty()) return "";
    std::string backend = r.host.backend_module.empty() ? vmm::backend_name(r.host.backend) : suite::backend_label(r);
    return fmt::format("expected failures ({} known limitation{} of {}; they do not fail the run): {}\n",
                       names.size(), names.size() == 1 ? "" : "s", backend, fmt::join(names, ", "));
}

} // namespace

namespace {

std::string exits_cell(const suite::TestResult& t) {
    if (!suite::measured(t)) return "-";
    std::string exp = fmt::format("{:g}", t.exits.expected);
    if (t.exits.expected_max > t.exits.expected) exp += fmt::format("-{:g}", t.exits.expected_max);
    if (!t.exits.measured) return fmt::format("unverified ({})", exp);
    return fmt::format("{:.2f} ({})", *t.exits.measured, exp);
}

// --per-exit: percentiles from every sample, minus the timestamp pair's own cost.
std::string per_exit_section(const suite::RunReport& r) {
    auto overhead = suite::per_exit_overhead(r);
    std::string out;
    for (const auto& t : r.results) {
        if (t.per_exit_cycles.empty()) continue;
        if (out.empty())
            out = overhead ? fmt::format("  per exit, cycles, minus the timestamp overhead of {:.0f} (the "
                                         "baseline's median):\n", *overhead)
                           : "  per exit, cycles, timestamp overhead included (no baseline ran):\n";
        double off = overhead && t.name != "baseline" ? *overhead : 0;
        std::vector<double> qs{0.5, 0.9, 0.99, 0.999, 1.0};
        auto p = stats::percentiles(t.per_exit_cycles, qs);
        out += fmt::format("  {:<24} p50 {:>9.0f}  p90 {:>9.0f}  p99 {:>9.0f}  p99.9 {:>9.0f}  max {:>10.0f}  (n={})\n",
                           t.name, p[0] - off, p[1] - off, p[2] - off, p[3] - off, p[4] - off,
                           t.per_exit_cycles.size());
        if (t.name != "baseline") {
            std::istringstream lines(render_histogram(stats::histogram(net_per_exit(r, t), 12, true), 40));
            for (std::string line; std::getline(lines, line);) out += "      " + line + "\n";
        }
    }
    return out;
}

// --profile: host-side handling next to the guest-side round trip.
std::string profile_section(const suite::RunReport& r) {
    std::string out;
    for (const auto& t : r.results) {
        if (!t.host_profile) continue;
        const auto& p = *t.host_profile;
        if (out.empty()) out = "  host side (kvm_exit -> kvm_entry) of each test's most frequent exit:\n";
        std::string harness;
        if (p.harness_exits)
            harness = p.harness_mean_ns > 0
                          ? fmt::format("{:<26} not counted: {} harness exits (ucall port I/O), mean {:.0f} ns\n", "",
                                        p.harness_exits, p.harness_mean_ns)
                          : fmt::format("{:<26} not counted: {} harness exits (ucall port I/O)\n", "", p.harness_exits);
        if (!p.note.empty()) {
            out += fmt::format("  {:<24} {}\n", t.name, p.note) + harness;
            continue;
        }
        std::string trip = "-";
        if (t.exits.kind.rfind("user-", 0) == 0) {
            trip = "kvm_exit -> kvm_entry spans the trip to userspace, so no transition estimate";
        } else if (auto hl = suite::headline(t); hl && t.exits.expected > 0) {
            double rt_ns = hl->cycles / t.exits.expected / r.host.tsc_mhz * 1e3;
            trip = fmt::format("round trip {:.0f} ns, so entry+exit transitions ~{:.0f} ns", rt_ns, rt_ns - p.mean_ns);
        }
        out += fmt::format("  {:<24} {} x{:.2f}/iter: mean {:.0f} ns, p50 {:.0f}, p99 {:.0f}; {}\n", t.name, p.reason,
                           p.per_iter, p.mean_ns, p.p50_ns, p.p99_ns, trip) + harness;
    }
    return out;
}

// The VMM's share of each userspace exit, and the kernel and hardware rest.
std::string userspace_section(const suite::RunReport& r) {
    std::string out;
    for (const auto& t : r.results) {
        if (!t.userspace_split) continue;
        const auto& s = *t.userspace_split;
        if (out.empty())
            out = "  userspace exits, cycles per exit: the VMM (KVM_RUN return -> next KVM_RUN, host TSC) and the "
                  "rest, the kernel and hardware round trip:\n";
        out += fmt::format("  {:<24} VMM p50 {:.0f}, p99 {:.0f}, mean {:.0f}; kernel+hardware "
                           "{:.0f} of {:.0f}{}  (n={})\n",
                           t.name, s.vmm_p50, s.vmm_p99, s.vmm_mean, s.kernel_cycles, s.exit_cycles,
                           suite::baseline_cycles(r) && t.name != "baseline" ? " -baseline" : "", s.exits);
    }
    return out;
}

std::string header(const suite::RunReport& r) {
    const auto& h = r.host;
    const auto& s = r.settings;
    std::string out = fmt::format("exitbench {} on {} ({}), kernel {}, KVM backend {} ({}), TSC {:.3f} MHz\n",
                                  r.tool_version, h.cpu_model, h.cpu_vendor, h.kernel_release,
                                  vmm::backend_name(h.backend), h.backend_module, h.tsc_mhz);
    out += fmt::format("batches: {}; {} repeats x {} session{}; {} vCPU(s) or each test's minimum; vCPU 0 {}\n",
                       s.iterations ? fmt::format("{} iterations", *s.iterations)
                                    : fmt::format("adaptive, time goal {:g} ms", s.time_goal_s * 1e3),
                       s.repeats, s.sessions, s.sessions == 1 ? "" : "s", s.smp,
                       s.pin_auto ? "pinned (--pin auto)"
                       : !s.pin.empty() ? fmt::format("pinned to CPU {}", s.pin[0])
                       : s.cpu ? fmt::format("pinned to CPU {}", *s.cpu) : "unpinned");
    if (suite::execution_of(r) == "emulated")
        out += fmt::format("{}: every figure below is QEMU TCG's ({}; {}), never a hardware cost\n",
                           suite::kEmulatedNote, suite::backend_label(r), r.boot->machine);
    out += s.sessions >= 2
               ? "cycles: geometric mean of the session medians; 95% CI across sessions (run-to-run); "
                 "cv: within a session; run: between sessions\n\n"
               : "cycles: median of the repeats; 95% CI of that median within this one session: it does not "
                 "describe run-to-run reproducibility (use --sessions N for that)\n\n";
    return out;
}

// What the rows refer to, gathered while they are printed.
struct Notes {
    std::map<std::string, std::vector<std::string>> by_note;  // exit note -> tests
    std::vector<std::string> details, extra, outliers, unstable, short_cover;
    std::map<std::string, int> counts;

    void add(const suite::TestResult& t, double tsc_mhz) {
        counts[suite::status_label(t)]++;
        for (const auto& c : t.host_checks) extra.push_back(fmt::format("  {}: {}", t.name, c));
        for (const auto& w : t.warnings) extra.push_back(fmt::format("  {}: warning: {}", t.name, w));
        if (!t.ipi_latency_cycles.empty()) {
            double m = stats::median(t.ipi_latency_cycles);
            extra.push_back(fmt::format("  {}: IPI delivery (sender ICR write -> target handler), median of batch "
                                        "means {:.0f} cycles ({:.1f} ns)", t.name, m, m / tsc_mhz * 1e3));
        }
        if (!t.detail.empty() && t.status != suite::Status::NoExit)
            details.push_back(fmt::format("  {} ({}): {}", t.name, suite::status_name(t.status), t.detail));
        for (const auto& session : t.sessions) {
            if (session.samples.size() < 2) continue;
            double cv = stats::cv(session.samples);
            auto o = stats::outliers(session.samples);
            if (cv > 0.05) unstable.push_back(fmt::format("{} {:.1f}%", t.name, cv * 100));
            if (size_t n = o.low.size() + o.high.size()) outliers.push_back(fmt::format("{} {}", t.name, n));
            break;  // the first session speaks for the test; JSON has every one
        }
        if (auto hl = suite::headline(t); hl && hl->coverage < 0.95)
            short_cover.push_back(fmt::format("{} {:.0f}%", t.name, hl->coverage * 100));
        if (!t.exits.note.empty() && suite::measured(t)) by_note[t.exits.note].push_back(t.name);
    }

    std::string text(const suite::RunReport& r) {
        auto line = [&](const char* what, const std::vector<std::string>& v) {
            if (!v.empty()) extra.push_back(fmt::format("  {}: {}", what, fmt::join(v, ", ")));
        };
        line("unstable, CV above 5% across repeats (consider pinning with --cpu/--pin and an idle host)", unstable);
        line("too few repeats for a 95% interval of the median; it covers only", short_cover);
        line("outlier repeats (Tukey fences; kept in the figures)", outliers);
        std::string out = per_exit_section(r) + userspace_section(r) + profile_section(r);
        for (const auto& d : extra) out += d + "\n";
        for (const auto& d : details) out += d + "\n";
        for (const auto& [note, tests] : by_note) out += fmt::format("  {}: {}\n", fmt::join(tests, ", "), note);
        return out.empty() ? out : "\n" + out;
    }
};

constexpr const char* kRow = "{:<{}} {:>11} {:>21} {:>6} {:>6} {:>10} {:>11}  {:<20} {:>8}  {}\n";

std::string row(const suite::TestResult& t, size_t w, const std::optional<double>& base, double tsc_mhz) {
    std::string med = "-", ci = "-", cv = "-", run = "-", ns = "-", net = "-";
    if (auto hl = suite::headline(t)) {
        double m = hl->cycles;
        med = fmt::format("{:.0f}", m);
        ci = fmt::format("{:.0f}-{:.0f}", hl->ci.lo, hl->ci.hi);
        cv = fmt::format("{:.1f}", hl->within_cv * 100);
        if (hl->between_sessions) run = fmt::format("{:.1f}", hl->between_cv * 100);
        ns = fmt::format("{:.1f}", m / tsc_mhz * 1e3);
        if (t.status == suite::Status::NoExit)
            net = "no exit";  // not an exit cost
        else if (base && t.name != "baseline" && t.exits.expected > 1)
            net = fmt::format("{:.0f}/exit", (m - *base) / t.exits.expected);
        else if (base && t.name != "baseline")
            net = fmt::format("{:.0f}", m - *base);
    }
    std::string irq = t.irqs_per_iter && *t.irqs_per_iter > 0 ? fmt::format("{:.2f}", *t.irqs_per_iter) : "-";
    return fmt::format(fmt::runtime(kRow), t.name, w, med, ci, cv, run, ns, net, exits_cell(t), irq,
                       suite::status_text(t));
}

class Table : public Exporter {
public:
    std::string render(const suite::RunReport& r) const override {
        std::string out = header(r);
        size_t w = 4;
        for (const auto& t : r.results) w = std::max(w, t.name.size());
        out += fmt::format(fmt::runtime(kRow), "test", w, "cycles/iter", "95% CI", "cv%", "run%", "ns/iter",
                           "-baseline", "exits/iter (exp)", "irq/iter", "status");
        auto base = suite::baseline_cycles(r);
        Notes notes;
        for (const auto& t : r.results) {
            out += row(t, w, base, r.host.tsc_mhz);
            notes.add(t, r.host.tsc_mhz);
        }
        out += notes.text(r) + "\n";
        std::vector<std::string> parts;
        for (const auto& [k, v] : notes.counts) parts.push_back(fmt::format("{} {}", v, k));
        out += fmt::format("{} tests: {}{}\n", r.results.size(), fmt::join(parts, ", "),
                           r.interrupted ? " (interrupted: later tests did not run)" : "");
        out += expected_failures_line(r);
        return out + wall_time_text(r);
    }

    // Names, facts and details come from files: no raw control byte reaches the terminal.
    std::string render(const Comparison& c) const override {
        std::string text = fmt::format("exitbench compare\n{}\n", fmt::join(c.header, "\n")) +
                           render_comparison(c.report);
        std::string shown;
        for (size_t at = 0, nl; at < text.size(); at = nl + 1) {
            nl = text.find('\n', at);
            if (nl == std::string::npos) nl = text.size();
            shown += printable(std::string_view(text).substr(at, nl - at)) + "\n";
        }
        return shown;
    }

    std::string render(const profile::Report& p) const override { return render_extended(p); }
    std::string render(const Merged& m) const override { return render_merged(m); }
    std::string render(const ProfileComparison& c) const override { return render_profile_compare(c.changes, c.mode); }
    std::string render(const HostProfileComparison& c) const override { return render_host_diff(c.diff); }
};

} // namespace

std::unique_ptr<Exporter> table_exporter() { return std::make_unique<Table>(); }

std::string run_header(const suite::RunReport& r) { return header(r); }

std::vector<std::string> run_header_lines(const suite::RunReport& r) {
    std::string text = header(r);
    std::vector<std::string> out;
    for (size_t at = 0, nl; at < text.size(); at = nl + 1) {
        nl = text.find('\n', at);
        if (nl == std::string::npos) nl = text.size();
        if (nl > at) out.push_back(text.substr(at, nl - at));
    }
    return out;
}

} // namespace eb::report
