#include "report/flame.h"

#include <map>
#include <memory>

namespace eb::report {

namespace {

struct Node {
    uint64_t value = 0;
    std::map<std::string, std::unique_ptr<Node>> children;
};

nlohmann::json to_json(const std::string& name, const Node& n, uint64_t min_value) {
    nlohmann::json kids = nlohmann::json::array();
    for (const auto& [k, c] : n.children)
        if (c->value >= min_value) kids.push_back(to_json(k, *c, min_value));
    return {{"name", name}, {"value", n.value}, {"children", kids}};
}

} // namespace

nlohmann::json flame_tree(const profile::TestHostProfile& p, double min_share) {
    Node root;
    for (const auto& [stack, n] : p.stacks) {
        root.value += n;
        Node* at = &root;
        for (const auto& f : stack) {
            auto& next = at->children[f];
            if (!next) next = std::make_unique<Node>();
            next->value += n;
            at = next.get();
        }
    }
    auto min_value = static_cast<uint64_t>(min_share * double(root.value));
    return to_json(p.test, root, std::max<uint64_t>(min_value, 1));
}

} // namespace eb::report
