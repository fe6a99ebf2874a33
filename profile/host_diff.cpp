#include "profile/host_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "stats/family.h"

namespace eb::profile {

namespace {

struct Cost {
    double total_ns = 0, self_ns = 0, share = 0;
    uint64_t samples = 0;  // with it anywhere in the stack
};
using Costs = std::map<std::string, Cost>;

// Every sampled function of `p` in ns per iteration: its share of the
// samples times the sampled batches' cost per iteration.
Costs costs_of(const TestHostProfile& p, double tsc_mhz) {
    Costs out;
    if (p.samples == 0 || tsc_mhz <= 0) return out;
    double cost_ns = p.sampled.cycles_per_iteration() * 1e3 / tsc_mhz;
    for (const auto& f : function_shares(p))
        out[f.name] = {share_of(f.total, p.samples, cost_ns).value, share_of(f.self, p.samples, cost_ns).value,
                       double(f.total) / double(p.samples), f.total};
    return out;
}

const TestHostProfile* find_test(const RoundProfiles& r, const std::string& test) {
    for (const auto& p : r)
        if (p.test == test && p.samples > 0 && p.sampled.iterations > 0) return &p;
    return nullptr;
}

std::vector<std::string> test_names(const std::vector<RoundProfiles>& a, const std::vector<RoundProfiles>& b) {
    std::vector<std::string> out;
    for (const auto* side : {&a, &b})
        for (const auto& round : *side)
            for (const auto& p : round)
                if (std::find(out.begin(), out.end(), p.test) == out.end()) out.push_back(p.test);
    return out;
}

double mean_of(const std::vector<Costs>& rounds, const std::string& f, double Cost::*field) {
    double sum = 0;
    for (const auto& c : rounds)
        if (auto it = c.find(f); it != c.end()) sum += it->second.*field;
    return rounds.empty() ? 0 : sum / double(rounds.size());
}

// The functions of one test worth testing: a mean share of at least
// min_share on a side, the largest max_per_test of them.
std::vector<std::string> candidates(const std::vector<Costs>& ca, const std::vector<Costs>& cb, const HostDiffOptions& o) {
    std::map<std::string, double> share;
    for (const auto* side : {&ca, &cb})
        for (const auto& c : *side)
            for (const auto& [f, _] : c) share[f] = std::max(share[f], mean_of(*side, f, &Cost::share));
    std::vector<std::pair<double, std::string>> by_share;
    for (const auto& [f, s] : share)
        if (s >= o.min_share) by_share.emplace_back(-s, f);
    std::sort(by_share.begin(), by_share.end());
    if (by_share.size() > o.max_per_test) by_share.resize(o.max_per_test);
    std::vector<std::string> out;
    for (auto& [_, f] : by_share) out.push_back(std::move(f));
    return out;
}

// One function's means a side, before any test.
FunctionMove means(const std::string& test, const std::string& f, const std::vector<Costs>& ca,
                   const std::vector<Costs>& cb) {
    FunctionMove m;
    m.test = test;
    m.function = f;
    m.a_ns = mean_of(ca, f, &Cost::total_ns);
    m.b_ns = mean_of(cb, f, &Cost::total_ns);
    m.a_self_ns = mean_of(ca, f, &Cost::self_ns);
    m.b_self_ns = mean_of(cb, f, &Cost::self_ns);
    m.t.estimate = m.b_ns - m.a_ns;
    return m;
}

FunctionMove test_function(const std::string& test, const std::string& f, const std::vector<Costs>& ca,
                           const std::vector<Costs>& cb, double alpha) {
    FunctionMove m = means(test, f, ca, cb);
    std::vector<double> d;
    for (size_t r = 0; r < ca.size(); ++r) {
        auto at = [&](const Costs& c) { auto it = c.find(f); return it == c.end() ? 0.0 : it->second.total_ns; };
        d.push_back(at(cb[r]) - at(ca[r]));
    }
    if (d.size() < 2) {
        m.why = "not testable: one round cannot show round-to-round variation";
    } else if (std::all_of(d.begin(), d.end(), [&](double x) { return x == d.front(); })) {
        m.why = "not testable: the same change in every round (no spread to test against)";
    } else {
        m.t = stats::one_sample_t(d, alpha);
        m.move = Move::None;
    }
    return m;
}

// Holm over every function tested, then the verdicts, largest change first.
void decide(HostDiff& out, double alpha) {
    std::vector<double> p;
    for (const auto& f : out.functions) p.push_back(f.move == Move::NotTestable ? std::nan("") : f.t.p);
    auto holm = stats::holm_adjust(p);
    for (size_t i = 0; i < out.functions.size(); ++i) {
        auto& f = out.functions[i];
        if (f.move == Move::NotTestable) continue;
        ++out.family;
        f.p_holm = holm[i];
        if (f.p_holm < alpha) f.move = f.t.estimate > 0 ? Move::Up : Move::Down;
    }
    std::stable_sort(out.functions.begin(), out.functions.end(), [](const FunctionMove& x, const FunctionMove& y) {
        return std::abs(x.t.estimate) > std::abs(y.t.estimate);
    });
}

} // namespace

const char* move_name(Move m) {
    switch (m) {
    case Move::Up: return "slower";
    case Move::Down: return "faster";
    case Move::None: return "no difference";
    case Move::NotTestable: return "not testable";
    }
    return "?";
}

std::vector<const FunctionMove*> HostDiff::moved() const {
    std::vector<const FunctionMove*> out;
    for (const auto& f : functions)
        if (f.move == Move::Up || f.move == Move::Down) out.push_back(&f);
    return out;
}

HostDiff host_diff(const std::string& label_a, const std::string& label_b, const std::vector<RoundProfiles>& a,
                   const std::vector<RoundProfiles>& b, double tsc_mhz, const HostDiffOptions& o) {
    HostDiff out;
    out.label_a = label_a;
    out.label_b = label_b;
    out.alpha = o.alpha;
    for (const auto& test : test_names(a, b)) {
        std::vector<Costs> ca, cb;
        for (size_t r = 0; r < std::min(a.size(), b.size()); ++r) {
            const auto* pa = find_test(a[r], test);
            const auto* pb = find_test(b[r], test);
            if (!pa || !pb) continue;
            ca.push_back(costs_of(*pa, tsc_mhz));
            cb.push_back(costs_of(*pb, tsc_mhz));
        }
        size_t held = std::max(a.size(), b.size());
        if (ca.empty())
            out.notes.push_back(fmt::format("{}: not compared: no round holds samples of it on both sides (its "
                                            "sampled batches are too short for the sampling rate, or it ran on "
                                            "one side only)", test));
        else if (ca.size() < held)
            out.notes.push_back(fmt::format("{}: {} of {} rounds hold a profile on both sides (a side without "
                                            "samples or with no completed sampled batch is left out)",
                                            test, ca.size(), held));
        out.rounds = std::max(out.rounds, ca.size());
        for (const auto& f : candidates(ca, cb, o)) out.functions.push_back(test_function(test, f, ca, cb, o.alpha));
    }
    decide(out, o.alpha);
    return out;
}

namespace {

// Welch's t of one function's ns per iteration, run by run (0 in a run
// that did not sample it).
FunctionMove test_across_runs(const std::string& test, const std::string& f, const std::vector<Costs>& ca,
                              const std::vector<Costs>& cb, double alpha) {
    FunctionMove m = means(test, f, ca, cb);
    auto values = [&](const std::vector<Costs>& side) {
        std::vector<double> v;
        for (const auto& c : side) v.push_back(c.count(f) ? c.at(f).total_ns : 0.0);
        return v;
    };
    auto va = values(ca), vb = values(cb);
    auto flat = [](const std::vector<double>& v) {
        return std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); });
    };
    if (va.size() < 2 || vb.size() < 2) {
        m.why = "not testable: one run a side cannot show run-to-run variation; save 3 or more runs a side";
    } else if (flat(va) && flat(vb)) {
        m.why = "not testable: the same figure in every run (no spread to test against)";
    } else {
        m.t = stats::welch(va, vb, alpha);
        m.move = Move::None;
    }
    return m;
}

// Functions with samples in some unit of one side and in none of the other's.
void one_sided(HostDiff& out, const std::string& test, const std::vector<Costs>& ca, const std::vector<Costs>& cb) {
    auto samples = [](const std::vector<Costs>& side) {
        std::map<std::string, uint64_t> n;
        for (const auto& c : side)
            for (const auto& [f, cost] : c) n[f] += cost.samples;
        return n;
    };
    auto na = samples(ca), nb = samples(cb);
    std::vector<OneSided> found;
    for (auto [n, other, costs, in_b] : {std::tuple{&na, &nb, &ca, false}, std::tuple{&nb, &na, &cb, true}})
        for (const auto& [f, k] : *n)
            if (k > 0 && !other->count(f)) found.push_back({test, f, in_b, mean_of(*costs, f, &Cost::total_ns), k});
    std::stable_sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.ns > y.ns; });
    out.one_sided.insert(out.one_sided.end(), found.begin(), found.end());
}

} // namespace

std::vector<std::string> tests_of(const std::vector<RunProfiles>& a, const std::vector<RunProfiles>& b) {
    std::vector<std::string> out;
    for (const auto* side : {&a, &b})
        for (const auto& run : *side)
            for (const auto& p : run.profiles)
                if (std::find(out.begin(), out.end(), p.test) == out.end()) out.push_back(p.test);
    return out;
}

HostDiff host_diff_runs(const std::string& label_a, const std::string& label_b, const std::vector<RunProfiles>& a,
                        const std::vector<RunProfiles>& b, const HostDiffOptions& o) {
    HostDiff out;
    out.label_a = label_a;
    out.label_b = label_b;
    out.alpha = o.alpha;
    out.paired = false;
    for (const auto& test : tests_of(a, b)) {
        std::vector<Costs> ca, cb;
        for (auto [side, costs] : {std::pair{&a, &ca}, std::pair{&b, &cb}})
            for (const auto& run : *side)
                if (const auto* p = find_test(run.profiles, test); p && run.tsc_mhz > 0)
                    costs->push_back(costs_of(*p, run.tsc_mhz));
        if (ca.empty() || cb.empty()) {
            out.notes.push_back(fmt::format("{}: not compared: {} holds no run with samples of it", test,
                                            ca.empty() ? label_a : label_b));
            continue;
        }
        out.rounds = out.rounds ? std::min(out.rounds, std::min(ca.size(), cb.size())) : std::min(ca.size(), cb.size());
        for (const auto& f : candidates(ca, cb, o)) out.functions.push_back(test_across_runs(test, f, ca, cb, o.alpha));
        one_sided(out, test, ca, cb);
    }
    decide(out, o.alpha);
    return out;
}

double function_ns(const TestHostProfile& p, const std::string& function, bool total, double tsc_mhz) {
    auto c = costs_of(p, tsc_mhz);
    auto it = c.find(function);
    if (it == c.end()) return 0;
    return total ? it->second.total_ns : it->second.self_ns;
}

} // namespace eb::profile
