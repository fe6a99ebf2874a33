// Before/after per key: the count change and the shift of the mean, p50 and
// p99 handling time. One trace a side is one VM a side, so the per-exit
// durations are not independent units: the shifts are descriptive, never a
// verdict (a rank test over pooled exits called a 1% per-VM offset
// "significant" in most pairs of identical VMs).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <stdexcept>
#include <tuple>

#include "profile/analyze.h"

namespace eb::profile {

namespace {

std::string us(double ns) { return fmt::format("{:.2f}us", ns / 1000); }

std::string pct(double ratio) { return fmt::format("{:+.1f}%", (ratio - 1) * 100); }

// A timed row's verdict: the test across traces, or why there is none.
std::string timed_verdict(const ReasonChange& c) {
    if (c.tested)
        return fmt::format("{} (mean {} [{}, {}], p {:.3g}, Holm p {:.3g}; {} vs {} traces)", c.verdict,
                           pct(c.ratio), pct(c.ci_lo), pct(c.ci_hi), c.p, c.p_holm, c.old_traces, c.new_traces);
    if (c.old_traces <= 1 && c.new_traces <= 1) return "not testable (one trace a side)";
    if (c.old_traces >= 2 && c.new_traces >= 2) return "not testable (the traces agree exactly)";
    return fmt::format("not testable ({} vs {} traces)", c.old_traces, c.new_traces);
}

} // namespace

std::vector<ReasonChange> compare(const Report& old_rep, const Report& new_rep) {
    if (old_rep.mode != new_rep.mode)
        throw std::invalid_argument(fmt::format("cannot compare a {} report with a {} report", mode_name(old_rep.mode),
                                                mode_name(new_rep.mode)));
    if (old_rep.mode == Mode::VmExit && old_rep.isa != new_rep.isa)
        throw std::invalid_argument(fmt::format("cannot compare {} exit reasons with {} ones", old_rep.isa, new_rep.isa));

    using K = std::tuple<EventType, uint64_t, uint32_t>;
    std::map<K, std::pair<const Row*, const Row*>> keys;
    for (const Row& r : old_rep.rows) keys[{r.type, r.key, r.info}].first = &r;
    for (const Row& r : new_rep.rows) keys[{r.type, r.key, r.info}].second = &r;

    std::vector<ReasonChange> out;
    for (const auto& [k, rows] : keys) {
        const auto [a, b] = rows;
        ReasonChange c;
        std::tie(c.type, c.key, c.info) = k;
        c.name = b ? b->name : a->name;
        if (a) {
            c.old_count = a->count;
            c.old_share_pct = old_rep.total_samples ? 100.0 * double(a->count) / double(old_rep.total_samples) : 0;
            c.old_mean_ns = a->timed ? a->mean_ns : 0;
            c.old_p50_ns = a->p50_ns;
            c.old_p99_ns = a->p99_ns;
        }
        if (b) {
            c.new_count = b->count;
            c.new_share_pct = new_rep.total_samples ? 100.0 * double(b->count) / double(new_rep.total_samples) : 0;
            c.new_mean_ns = b->timed ? b->mean_ns : 0;
            c.new_p50_ns = b->p50_ns;
            c.new_p99_ns = b->p99_ns;
        }
        c.summary_only = a && b && a->timed && b->timed &&
                         (!(old_rep.imported.empty() && new_rep.imported.empty()));
        if (a && b && a->timed && b->timed && !c.summary_only) {
            auto rel = [](double n, double o) { return o > 0 ? n / o - 1 : std::nan(""); };
            c.timed = true;
            c.mean_rel = rel(c.new_mean_ns, c.old_mean_ns);
            c.p50_rel = rel(c.new_p50_ns, c.old_p50_ns);
            c.p99_rel = rel(c.new_p99_ns, c.old_p99_ns);
        }
        out.push_back(std::move(c));
    }
    std::sort(out.begin(), out.end(), [](const ReasonChange& x, const ReasonChange& y) {
        uint64_t nx = x.old_count + x.new_count, ny = y.old_count + y.new_count;
        return nx != ny ? nx > ny : x.name < y.name;
    });
    return out;
}

std::string render_compare(const std::vector<ReasonChange>& changes, Mode mode) {
    const char* title = mode == Mode::VmExit ? "VM-EXIT"
                        : mode == Mode::Mmio ? "MMIO Access"
                        : mode == Mode::Ioport ? "IO Port Access"
                                               : "MSR Access";
    std::string out = fmt::format("{:>40} {:>23} {:>22} {:>22} {:>24}  {}\n\n", title, "Samples old -> new",
                                  "Avg time old -> new", "p50 old -> new", "Shift mean/p50/p99", "Verdict");
    auto rel = [](double r) { return std::isnan(r) ? std::string("-") : fmt::format("{:+.1f}%", 100 * r); };
    for (const ReasonChange& c : changes) {
        std::string counts = fmt::format("{} -> {}", c.old_count, c.new_count);
        std::string avg = "-", p50 = "-", shift = "-", verdict;
        if (c.timed) {
            avg = fmt::format("{} -> {}", us(c.old_mean_ns), us(c.new_mean_ns));
            p50 = fmt::format("{} -> {}", us(c.old_p50_ns), us(c.new_p50_ns));
            shift = fmt::format("{}/{}/{}", rel(c.mean_rel), rel(c.p50_rel), rel(c.p99_rel));
            verdict = timed_verdict(c);
        } else if (c.summary_only) {
            avg = fmt::format("{} -> {}", us(c.old_mean_ns), us(c.new_mean_ns));
            verdict = "means only (an imported summary has no durations)";
        } else if (!c.old_count) {
            verdict = "only in new";
        } else if (!c.new_count) {
            verdict = "only in old";
        } else {
            verdict = "counts only (no latency)";
        }
        out += fmt::format("{:>40} {:>23} {:>22} {:>22} {:>24}  {}\n", c.name, counts, avg, p50, shift, verdict);
    }
    if (std::any_of(changes.begin(), changes.end(), [](const ReasonChange& c) { return c.tested; }))
        return out + "\nEach trace is one VM and one unit: a key's trace means are tested with Welch's t on their "
                     "logs, Holm-adjusted over the keys tested. Several traces a side: means and percentiles are "
                     "averages over the traces.\n";
    out += "\nOne trace a side is one VM a side: its exits share that VM, so they are not independent units and "
           "the shifts above are descriptive, not a test. To test a change, compare runs (exitbench compare), "
           "whose units are runs, or give several traces a side (profile compare OLD1 OLD2 --vs NEW1 NEW2).\n";
    return out;
}

} // namespace eb::profile
