#include "report/flame_diff.h"

#include <map>
#include <memory>

namespace eb::report {

namespace {

struct DiffNode {
    double a = 0, b = 0;
    std::map<std::string, std::unique_ptr<DiffNode>> children;
};

const profile::TestHostProfile* profile_of(const profile::RoundProfiles& r, const std::string& test) {
    for (const auto& p : r)
        if (p.test == test && p.samples > 0 && p.sampled.iterations > 0) return &p;
    return nullptr;
}

// Adds one profile's stacks, each as its ns per iteration times `weight`, to side a or b.
void add_profile(DiffNode& root, const profile::TestHostProfile& p, double tsc_mhz, double weight, double DiffNode::*side) {
    double ns_per_sample = p.sampled.cycles_per_iteration() * 1e3 / tsc_mhz / double(p.samples) * weight;
    for (const auto& [stack, n] : p.stacks) {
        double ns = double(n) * ns_per_sample;
        root.*side += ns;
        DiffNode* at = &root;
        for (const auto& f : stack) {
            auto& next = at->children[f];
            if (!next) next = std::make_unique<DiffNode>();
            (*next).*side += ns;
            at = next.get();
        }
    }
}

nlohmann::json diff_json(const std::string& name, const DiffNode& n, double min_value) {
    nlohmann::json kids = nlohmann::json::array();
    for (const auto& [k, c] : n.children)
        if ((c->a + c->b) / 2 >= min_value) kids.push_back(diff_json(k, *c, min_value));
    return {{"name", name}, {"value", (n.a + n.b) / 2}, {"a", n.a}, {"b", n.b}, {"children", kids}};
}

} // namespace

nlohmann::json diff_flame_tree(const std::string& test, const std::vector<profile::RoundProfiles>& a,
                               const std::vector<profile::RoundProfiles>& b, double tsc_mhz, double min_share) {
    std::vector<std::pair<const profile::TestHostProfile*, const profile::TestHostProfile*>> pairs;
    for (size_t r = 0; r < std::min(a.size(), b.size()); ++r) {
        const auto *pa = profile_of(a[r], test), *pb = profile_of(b[r], test);
        if (pa && pb) pairs.emplace_back(pa, pb);
    }
    if (pairs.empty() || tsc_mhz <= 0) return nullptr;
    DiffNode root;
    double w = 1.0 / double(pairs.size());
    for (const auto& [pa, pb] : pairs) {
        add_profile(root, *pa, tsc_mhz, w, &DiffNode::a);
        add_profile(root, *pb, tsc_mhz, w, &DiffNode::b);
    }
    return diff_json(test, root, min_share * (root.a + root.b) / 2);
}

nlohmann::json diff_flame_tree_runs(const std::string& test, const std::vector<profile::RunProfiles>& a,
                                    const std::vector<profile::RunProfiles>& b, double min_share) {
    auto held = [&](const std::vector<profile::RunProfiles>& side) {
        std::vector<std::pair<const profile::TestHostProfile*, double>> out;
        for (const auto& r : side)
            if (const auto* p = profile_of(r.profiles, test); p && r.tsc_mhz > 0) out.emplace_back(p, r.tsc_mhz);
        return out;
    };
    auto ha = held(a), hb = held(b);
    if (ha.empty() || hb.empty()) return nullptr;
    DiffNode root;
    for (const auto& [p, tsc] : ha) add_profile(root, *p, tsc, 1.0 / double(ha.size()), &DiffNode::a);
    for (const auto& [p, tsc] : hb) add_profile(root, *p, tsc, 1.0 / double(hb.size()), &DiffNode::b);
    return diff_json(test, root, min_share * (root.a + root.b) / 2);
}

} // namespace eb::report
