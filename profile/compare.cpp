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
#include "sys/error.h"

namespace eb::profile {


std::vector<ReasonChange> compare(const Report& old_rep, const Report& new_rep) {
    if (old_rep.mode != new_rep.mode)
        throw InputError(fmt::format("cannot compare a {} report with a {} report", mode_name(old_rep.mode),
                                                mode_name(new_rep.mode)));
    if (old_rep.mode == Mode::VmExit && old_rep.isa != new_rep.isa)
        throw InputError(fmt::format("cannot compare {} exit reasons with {} ones", old_rep.isa, new_rep.isa));

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


} // namespace eb::profile
