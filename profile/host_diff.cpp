#include "profile/host_diff.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "stats/family.h"

namespace eb::profile {

namespace {

struct Cost {
    double total_ns = 0, self_ns = 0, share = 0;
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
                       double(f.total) / double(p.samples)};
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

FunctionMove test_function(const std::string& test, const std::string& f, const std::vector<Costs>& ca,
                           const std::vector<Costs>& cb, double alpha) {
    FunctionMove m;
    m.test = test;
    m.function = f;
    m.a_ns = mean_of(ca, f, &Cost::total_ns);
    m.b_ns = mean_of(cb, f, &Cost::total_ns);
    m.a_self_ns = mean_of(ca, f, &Cost::self_ns);
    m.b_self_ns = mean_of(cb, f, &Cost::self_ns);
    std::vector<double> d;
    for (size_t r = 0; r < ca.size(); ++r) {
        auto at = [&](const Costs& c) { auto it = c.find(f); return it == c.end() ? 0.0 : it->second.total_ns; };
        d.push_back(at(cb[r]) - at(ca[r]));
    }
    m.t.estimate = m.b_ns - m.a_ns;
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
    std::vector<double> p;
    for (const auto& f : out.functions) p.push_back(f.move == Move::NotTestable ? std::nan("") : f.t.p);
    auto holm = stats::holm_adjust(p);
    for (size_t i = 0; i < out.functions.size(); ++i) {
        auto& f = out.functions[i];
        if (f.move == Move::NotTestable) continue;
        ++out.family;
        f.p_holm = holm[i];
        if (f.p_holm < o.alpha) f.move = f.t.estimate > 0 ? Move::Up : Move::Down;
    }
    std::stable_sort(out.functions.begin(), out.functions.end(), [](const FunctionMove& x, const FunctionMove& y) {
        return std::abs(x.t.estimate) > std::abs(y.t.estimate);
    });
    return out;
}

double function_ns(const TestHostProfile& p, const std::string& function, bool total, double tsc_mhz) {
    auto c = costs_of(p, tsc_mhz);
    auto it = c.find(function);
    if (it == c.end()) return 0;
    return total ? it->second.total_ns : it->second.self_ns;
}

} // namespace eb::profile
