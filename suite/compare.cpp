#include "suite/compare.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

#include "stats/ab.h"
#include "stats/summary.h"

namespace eb::suite {

const char* verdict_name(Verdict v) {
    switch (v) {
    case Verdict::Faster: return "faster";
    case Verdict::Slower: return "slower";
    case Verdict::NoDifference: return "no detectable difference";
    case Verdict::NotTestable: break;
    }
    return "not testable";
}

const char* unit_name(Unit u) {
    switch (u) {
    case Unit::Session: return "session";
    case Unit::Run: return "run";
    case Unit::Round: break;
    }
    return "round";
}

namespace {

// One configuration's data for one test, kept by level.
struct SideData {
    std::vector<std::vector<double>> runs;      // per file or round (maybe empty): its sessions' log medians
    std::vector<std::vector<double>> sessions;  // per session: the log of each repeat
    std::vector<uint64_t> batch_sizes;
    std::map<std::string, std::vector<double>> by_boot;  // boot id: each run's mean log median
    Status status = Status::Ok;
    std::string detail;
    bool seen = false;
};

void add(SideData& d, const TestResult* t, const std::string& boot) {
    d.runs.emplace_back();
    if (!t) return;
    if (!d.seen || severity(t->status) > severity(d.status)) {
        d.status = t->status;
        d.detail = t->detail;
    }
    d.seen = true;
    for (const auto& s : t->sessions) {
        if (s.samples.empty() || stats::median(s.samples) <= 0) continue;  // no log of a non-positive cost
        std::vector<double> logs;
        for (double x : s.samples)
            if (x > 0) logs.push_back(std::log(x));
        d.runs.back().push_back(std::log(stats::median(s.samples)));
        d.sessions.push_back(std::move(logs));
        if (s.iterations) d.batch_sizes.push_back(s.iterations);  // 0: unknown (an imported run)
    }
    if (!boot.empty() && !d.runs.back().empty()) d.by_boot[boot].push_back(stats::mean(d.runs.back()));
}

void boot_level(SideSummary& s, const SideData& d) {
    s.boots = d.by_boot.size();
    if (s.boots < 2) return;
    std::vector<std::vector<double>> groups;
    for (const auto& [id, runs] : d.by_boot) {
        groups.push_back(runs);
        s.boot_holds_two_runs = s.boot_holds_two_runs || runs.size() >= 2;
    }
    s.between_boot_sd = stats::variance_components(groups).between_sd;
}

// The unit values (logs): every session, or each run's (round's) mean.
std::vector<double> units(const SideData& d, Unit u) {
    std::vector<double> out;
    for (const auto& run : d.runs) {
        if (run.empty()) continue;
        if (u == Unit::Session) out.insert(out.end(), run.begin(), run.end());
        else out.push_back(stats::mean(run));
    }
    return out;
}

SideSummary summarize(const std::string& label, const SideData& d, Unit u) {
    SideSummary s;
    s.label = label;
    s.status = d.seen ? status_name(d.status) : "not run";
    s.detail = d.seen ? d.detail : "this configuration has no result for the test";
    s.sessions = d.sessions.size();
    auto y = units(d, u);
    for (double v : y) s.unit_medians.push_back(std::exp(v));
    if (!y.empty()) s.center = std::exp(stats::mean(y));
    if (y.size() >= 2) {
        auto t = stats::one_sample_t(y);
        s.center_ci = {std::exp(t.ci.lo), std::exp(t.ci.hi)};
    }
    auto by_session = stats::variance_components(d.sessions);
    s.within_sd = by_session.within_sd;
    s.between_session_sd = by_session.between_sd;
    if (u != Unit::Session) s.between_run_sd = stats::variance_components(d.runs).between_sd;
    boot_level(s, d);
    std::vector<double> sizes;
    for (const auto& x : d.sessions) sizes.push_back(double(x.size()));
    if (!sizes.empty()) s.repeats = size_t(stats::median(sizes));
    s.batch_sizes = d.batch_sizes;
    std::sort(s.batch_sizes.begin(), s.batch_sizes.end());
    s.batch_sizes.erase(std::unique(s.batch_sizes.begin(), s.batch_sizes.end()), s.batch_sizes.end());
    return s;
}

std::string no_samples_reason(const SideSummary& s) {
    return fmt::format("no samples under '{}' ({}{}{})", s.label, s.status, s.detail.empty() ? "" : ": ",
                       s.detail);
}

// Fills the verdict fields from a t test on log values.
void decide(Effect& e, const stats::TTest& t, double alpha) {
    e.ratio = std::exp(t.estimate);
    e.ratio_ci = {std::exp(t.ci.lo), std::exp(t.ci.hi)};
    e.p = t.p;
    e.df = t.df;
    e.detectable = std::exp(stats::detectable_difference(t, alpha)) - 1;
    e.verdict = t.p >= alpha ? Verdict::NoDifference : e.ratio < 1 ? Verdict::Faster : Verdict::Slower;
}

Effect effect_saved(const SideData& a, const SideData& b, const SideSummary& sa, const SideSummary& sb, Unit u,
                    double alpha) {
    Effect e;
    auto ya = units(a, u), yb = units(b, u);
    e.units_a = ya.size();
    e.units_b = yb.size();
    e.method = fmt::format("Welch t on log {} medians", unit_name(u));
    if (ya.empty() || yb.empty()) {
        e.why = no_samples_reason(ya.empty() ? sa : sb);
        return e;
    }
    e.ratio = std::exp(stats::mean(yb) - stats::mean(ya));
    if (ya.size() < 2 || yb.size() < 2) {
        e.why = fmt::format("run-to-run variation cannot be estimated from one {} per side", unit_name(u));
        if (ya.size() != yb.size()) e.why = fmt::format("one side has a single {}: its run-to-run variation "
                                                        "cannot be estimated", unit_name(u));
        return e;
    }
    decide(e, stats::welch(ya, yb, alpha), alpha);
    return e;
}

Effect effect_rounds(const SideData& a, const SideData& b, const SideSummary& sa, const SideSummary& sb,
                     double alpha) {
    Effect e;
    e.method = "paired t on per-round log ratios";
    std::vector<double> d;
    for (size_t r = 0; r < std::min(a.runs.size(), b.runs.size()); ++r)
        if (!a.runs[r].empty() && !b.runs[r].empty())
            d.push_back(stats::mean(b.runs[r]) - stats::mean(a.runs[r]));
    e.units_a = e.units_b = d.size();
    if (d.empty()) {
        e.why = no_samples_reason(sa.unit_medians.empty() ? sa : sb);
        return e;
    }
    e.ratio = std::exp(stats::mean(d));
    if (d.size() < 2) {
        e.why = "run-to-run variation cannot be estimated from one round";
        return e;
    }
    decide(e, stats::one_sample_t(d, alpha), alpha);
    return e;
}

using ByTest = std::map<std::string, std::vector<SideData>>;

// Test order: as first seen, configuration 0 first.
std::vector<std::string> test_order(const std::vector<std::vector<RunReport>>& sides) {
    std::vector<std::string> order;
    for (const auto& side : sides)
        for (const auto& rep : side)
            for (const auto& t : rep.results)
                if (std::find(order.begin(), order.end(), t.name) == order.end()) order.push_back(t.name);
    return order;
}

ByTest collect(const std::vector<std::vector<RunReport>>& sides, const std::vector<std::string>& order) {
    ByTest by;
    for (const auto& name : order) {
        auto& v = by[name];
        v.resize(sides.size());
        for (size_t k = 0; k < sides.size(); ++k)
            for (const auto& rep : sides[k]) {
                auto it = std::find_if(rep.results.begin(), rep.results.end(),
                                       [&](const auto& t) { return t.name == name; });
                add(v[k], it == rep.results.end() ? nullptr : &*it, rep.provenance.boot_id);
            }
    }
    return by;
}

std::string pct(double ratio) { return fmt::format("{:+.2f}%", (ratio - 1) * 100); }

// Warnings and advice that span tests.
void review(ComparisonReport& out, const ByTest& by) {
    std::vector<std::string> batch, dominated, only;
    bool too_few = false;
    for (const auto& t : out.tests) {
        const auto& sides = by.at(t.test);
        for (size_t k = 1; k < t.configs.size(); ++k) {
            const auto& e = t.vs_first[k - 1];
            if (t.configs[k].batch_sizes != t.configs[0].batch_sizes && !t.configs[k].batch_sizes.empty() &&
                !t.configs[0].batch_sizes.empty())
                batch.push_back(fmt::format("{} ({}: {}; {}: {})", t.test, out.labels[0],
                                            fmt::join(t.configs[0].batch_sizes, "/"), out.labels[k],
                                            fmt::join(t.configs[k].batch_sizes, "/")));
            if (e.verdict == Verdict::NotTestable && e.units_a > 0 && e.units_b > 0) too_few = true;
            if (t.test == "baseline" && e.verdict != Verdict::NotTestable &&
                (e.ratio_ci.lo > 1 || e.ratio_ci.hi < 1))
                out.warnings.push_back(fmt::format(
                    "the empty loop (baseline) moved {} [{}, {}] between '{}' and '{}': the host drifted, or the "
                    "configuration changes the loop itself (as --per-exit does); drift of this size is not "
                    "attributable to the configuration's exits", pct(e.ratio), pct(e.ratio_ci.lo),
                    pct(e.ratio_ci.hi), out.labels[0], out.labels[k]));
        }
        for (size_t k = 0; k < t.configs.size(); ++k) {
            const auto& c = t.configs[k];
            double between = out.unit == Unit::Session ? c.between_session_sd : c.between_run_sd;
            if (c.repeats && between > c.within_sd / std::sqrt(double(c.repeats)) &&
                std::find(dominated.begin(), dominated.end(), t.test) == dominated.end())
                dominated.push_back(t.test);
            if (!sides[k].seen) only.push_back(fmt::format("{} (not under '{}')", t.test, out.labels[k]));
        }
    }
    if (!only.empty()) out.warnings.push_back("partial overlap; compared where present: " + fmt::format("{}", fmt::join(only, ", ")));
    if (!batch.empty())
        out.warnings.push_back("batch sizes differ between the sides (per-iteration costs may shift with batch "
                               "size; fix it with --iterations): " + fmt::format("{}", fmt::join(batch, ", ")));
    if (too_few)
        out.advice.push_back(out.unit == Unit::Round
                                 ? "to get a verdict: run more rounds (--rounds 8 or more)"
                                 : "to get a verdict: save several sessions or runs per side (exitbench run "
                                   "--sessions 5 ... --json A.json, likewise B), then compare A*.json --vs "
                                   "B*.json; or compare live and interleaved: exitbench compare TESTS --a "
                                   "'OPTIONS' --b 'OPTIONS'");
    if (!dominated.empty())
        out.advice.push_back(fmt::format(
            "run-to-run spread outweighs the repeat noise for {}: more {}s sharpen these comparisons, more "
            "repeats do not", fmt::join(dominated, ", "), unit_name(out.unit)));
}

ComparisonReport build(const std::vector<std::string>& labels, const std::vector<std::vector<RunReport>>& sides,
                       Unit unit, double alpha) {
    if (labels.size() != sides.size() || sides.size() < 2)
        throw std::invalid_argument("a comparison needs two or more labelled sides");
    ComparisonReport out;
    out.labels = labels;
    out.unit = unit;
    out.alpha = alpha;
    auto order = test_order(sides);
    auto by = collect(sides, order);
    for (const auto& name : order) {
        const auto& d = by.at(name);
        TestComparison tc;
        tc.test = name;
        for (size_t k = 0; k < d.size(); ++k) tc.configs.push_back(summarize(labels[k], d[k], unit));
        for (size_t k = 1; k < d.size(); ++k)
            tc.vs_first.push_back(unit == Unit::Round
                                      ? effect_rounds(d[0], d[k], tc.configs[0], tc.configs[k], alpha)
                                      : effect_saved(d[0], d[k], tc.configs[0], tc.configs[k], unit, alpha));
        out.tests.push_back(std::move(tc));
    }
    review(out, by);
    if (out.tests.empty()) out.warnings.push_back("no test to compare");
    return out;
}

} // namespace

ComparisonReport compare_saved(const std::vector<std::string>& labels,
                               const std::vector<std::vector<RunReport>>& sides, double alpha) {
    // Several files a side, some with several sessions: sessions of one file
    // share a boot and a time, so the file is the independent unit.
    bool runs = !sides.empty();
    bool multi_session = false;
    for (const auto& side : sides) {
        runs = runs && side.size() >= 2;
        for (const auto& rep : side)
            for (const auto& t : rep.results) multi_session = multi_session || t.sessions.size() >= 2;
    }
    auto out = build(labels, sides, runs && multi_session ? Unit::Run : Unit::Session, alpha);
    bool one_run = std::any_of(sides.begin(), sides.end(), [](const auto& s) { return s.size() == 1; });
    if (out.unit == Unit::Session && one_run && multi_session)
        out.warnings.push_back("one run on a side: its sessions share that run's boot and time of day, so a verdict "
                               "covers these runs, not drift between runs; save two or more runs a side to make the "
                               "run the unit");
    return out;
}

ComparisonReport compare_rounds(const std::vector<std::string>& labels,
                                const std::vector<std::vector<RunReport>>& rounds, double alpha) {
    return build(labels, rounds, Unit::Round, alpha);
}

} // namespace eb::suite
