// profile compare with several traces a side: each trace is one VM, so its
// mean handling time per key is one unit, and a key is tested across traces.
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "profile/analyze.h"
#include "stats/ab.h"
#include "stats/family.h"
#include "stats/summary.h"

namespace eb::profile {

namespace {

using ReasonKey = std::tuple<EventType, uint64_t, uint32_t>;
using SideRows = std::pair<std::vector<const Row*>, std::vector<const Row*>>;

double avg(const std::vector<const Row*>& rows, double Row::*field) {
    double sum = 0;
    for (const Row* r : rows) sum += r->*field;
    return rows.empty() ? 0 : sum / double(rows.size());
}

uint64_t total(const std::vector<Report>& reps) {
    uint64_t n = 0;
    for (const auto& r : reps) n += r.total_samples;
    return n;
}

ReasonChange describe(const ReasonKey& k, const SideRows& rows, uint64_t old_total, uint64_t new_total, bool imported) {
    ReasonChange c;
    std::tie(c.type, c.key, c.info) = k;
    const auto& [a, b] = rows;
    c.name = b.empty() ? a.front()->name : b.front()->name;
    for (const Row* r : a) c.old_count += r->count;
    for (const Row* r : b) c.new_count += r->count;
    c.old_share_pct = old_total ? 100.0 * double(c.old_count) / double(old_total) : 0;
    c.new_share_pct = new_total ? 100.0 * double(c.new_count) / double(new_total) : 0;
    auto timed = [](const std::vector<const Row*>& v) {
        std::vector<const Row*> out;
        for (const Row* r : v)
            if (r->timed && r->mean_ns > 0) out.push_back(r);
        return out;
    };
    auto ta = timed(a), tb = timed(b);
    c.old_traces = ta.size();
    c.new_traces = tb.size();
    if (ta.empty() || tb.empty()) return c;
    c.old_mean_ns = avg(ta, &Row::mean_ns);
    c.new_mean_ns = avg(tb, &Row::mean_ns);
    if (imported) {
        c.summary_only = true;
        return c;
    }
    c.old_p50_ns = avg(ta, &Row::p50_ns);
    c.new_p50_ns = avg(tb, &Row::p50_ns);
    c.old_p99_ns = avg(ta, &Row::p99_ns);
    c.new_p99_ns = avg(tb, &Row::p99_ns);
    auto rel = [](double n, double o) { return o > 0 ? n / o - 1 : std::nan(""); };
    c.timed = true;
    c.mean_rel = rel(c.new_mean_ns, c.old_mean_ns);
    c.p50_rel = rel(c.new_p50_ns, c.old_p50_ns);
    c.p99_rel = rel(c.new_p99_ns, c.old_p99_ns);
    return c;
}

// Welch's t on the log trace means, when both sides hold two or more.
void test(ReasonChange& c, const SideRows& rows, double alpha) {
    if (!c.timed || c.old_traces < 2 || c.new_traces < 2) return;
    std::vector<double> a, b;
    for (const Row* r : rows.first)
        if (r->timed && r->mean_ns > 0) a.push_back(std::log(r->mean_ns));
    for (const Row* r : rows.second)
        if (r->timed && r->mean_ns > 0) b.push_back(std::log(r->mean_ns));
    auto t = stats::welch(a, b, alpha);
    if (!(t.se > 0)) return;  // traces agreeing exactly are no certainty
    c.tested = true;
    c.ratio = std::exp(t.estimate);
    c.ci_lo = std::exp(t.ci.lo);
    c.ci_hi = std::exp(t.ci.hi);
    c.p = t.p;
}

} // namespace

std::vector<ReasonChange> compare_sets(const std::vector<Report>& olds, const std::vector<Report>& news,
                                       double alpha) {
    bool imported = false;
    for (const auto& o : olds)
        for (const auto& n : news) {
            compare(o, n);  // throws when the modes or ISAs differ
            imported = imported || !o.imported.empty() || !n.imported.empty();
        }
    std::map<ReasonKey, SideRows> keys;
    for (const auto& rep : olds)
        for (const Row& r : rep.rows) keys[{r.type, r.key, r.info}].first.push_back(&r);
    for (const auto& rep : news)
        for (const Row& r : rep.rows) keys[{r.type, r.key, r.info}].second.push_back(&r);
    std::vector<ReasonChange> out;
    for (const auto& [k, rows] : keys) {
        out.push_back(describe(k, rows, total(olds), total(news), imported));
        test(out.back(), rows, alpha);
    }
    std::vector<double> p;
    for (const auto& c : out) p.push_back(c.tested ? c.p : std::nan(""));
    auto holm = stats::holm_adjust(p);
    for (size_t i = 0; i < out.size(); ++i) {
        auto& c = out[i];
        if (!c.tested) continue;
        c.p_holm = holm[i];
        c.verdict = c.p_holm >= alpha ? "no detectable difference" : c.ratio < 1 ? "faster" : "slower";
    }
    std::sort(out.begin(), out.end(), [](const ReasonChange& x, const ReasonChange& y) {
        uint64_t nx = x.old_count + x.new_count, ny = y.old_count + y.new_count;
        return nx != ny ? nx > ny : x.name < y.name;
    });
    return out;
}

} // namespace eb::profile
