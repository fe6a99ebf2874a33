// Before/after per key: the count change and a distribution-free test on the
// per-pair durations, so "MSR_WRITE avg 1.08us -> 0.58us" comes with its
// interval, p-value and verdict instead of two bare means.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <stdexcept>
#include <tuple>

#include "profile/analyze.h"

namespace eb::profile {

namespace {

// A row's durations as doubles, thinned to at most kCompareCap by an even
// stride through pairing order.
std::vector<double> sample(const Row& r) {
    size_t n = r.durations_ns.size() + r.long_durations_ns.size();
    size_t step = (n + kCompareCap - 1) / kCompareCap;
    std::vector<double> v;
    v.reserve(n / std::max<size_t>(step, 1) + 1);
    for (size_t i = 0; i < n; i += step)
        v.push_back(i < r.durations_ns.size() ? double(r.durations_ns[i])
                                              : double(r.long_durations_ns[i - r.durations_ns.size()]));
    return v;
}

const char* verdict_name(stats::Verdict v) {
    switch (v) {
    case stats::Verdict::Faster: return "faster";
    case stats::Verdict::Slower: return "slower";
    case stats::Verdict::NoDifference: return "no detectable difference";
    }
    return "?";
}

std::string us(double ns) { return fmt::format("{:.2f}us", ns / 1000); }

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
        }
        if (b) {
            c.new_count = b->count;
            c.new_share_pct = new_rep.total_samples ? 100.0 * double(b->count) / double(new_rep.total_samples) : 0;
            c.new_mean_ns = b->timed ? b->mean_ns : 0;
            c.new_p50_ns = b->p50_ns;
        }
        c.summary_only = a && b && a->timed && b->timed &&
                         (!(old_rep.imported.empty() && new_rep.imported.empty()));
        if (a && b && a->timed && b->timed && !c.summary_only) {
            std::vector<double> x = sample(*a), y = sample(*b);
            c.old_tested = x.size();
            c.new_tested = y.size();
            c.latency = stats::compare(x, y);
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
    std::string out = fmt::format("{:>40} {:>23} {:>22} {:>22} {:>34} {:>8}  {}\n\n", title, "Samples old -> new",
                                  "Avg time old -> new", "p50 old -> new", "Shift new-old (95% CI)", "p", "Verdict");
    for (const ReasonChange& c : changes) {
        std::string counts = fmt::format("{} -> {}", c.old_count, c.new_count);
        std::string avg = "-", p50 = "-", shift = "-", p = "-", verdict;
        if (c.latency) {
            const stats::Comparison& l = *c.latency;
            avg = fmt::format("{} -> {}", us(c.old_mean_ns), us(c.new_mean_ns));
            p50 = fmt::format("{} -> {}", us(c.old_p50_ns), us(c.new_p50_ns));
            shift = std::isnan(l.rel_shift)
                        ? fmt::format("{:+.2f}us [{:+.2f}, {:+.2f}]", l.shift.estimate / 1000, l.shift.ci.lo / 1000,
                                      l.shift.ci.hi / 1000)
                        : fmt::format("{:+.2f}us [{:+.2f}, {:+.2f}] {:+.1f}%", l.shift.estimate / 1000,
                                      l.shift.ci.lo / 1000, l.shift.ci.hi / 1000, 100 * l.rel_shift);
            p = l.p < 1e-4 ? std::string("<1e-4") : fmt::format("{:.4f}", l.p);
            verdict = verdict_name(l.verdict);
        } else if (c.summary_only) {
            avg = fmt::format("{} -> {}", us(c.old_mean_ns), us(c.new_mean_ns));
            verdict = "means only (an imported summary has no durations to test)";
        } else if (!c.old_count) {
            verdict = "only in new";
        } else if (!c.new_count) {
            verdict = "only in old";
        } else {
            verdict = "counts only (no latency)";
        }
        out += fmt::format("{:>40} {:>23} {:>22} {:>22} {:>34} {:>8}  {}\n", c.name, counts, avg, p50, shift, p,
                           verdict);
    }
    return out;
}

} // namespace eb::profile
