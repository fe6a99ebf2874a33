#include "profile/harness.h"

#include <unordered_map>

namespace eb::profile {

namespace {
// One thread's exit in progress: the indices of its events, and whether it
// is the harness's.
struct Open {
    std::vector<size_t> events;
    uint64_t exit_ns = 0;
    bool in_exit = false, harness = false, drop_next_userspace = false;
};
} // namespace

HarnessSplit split_harness(std::span<const Event> events, uint64_t port) {
    HarnessSplit out;
    std::vector<bool> drop(events.size(), false);
    std::unordered_map<uint32_t, Open> open;
    for (size_t i = 0; i < events.size(); ++i) {
        const auto& e = events[i];
        auto& o = open[e.tid];
        if (e.type == EventType::Exit) {
            o.events.clear();
            o.exit_ns = e.ts_ns;
            o.in_exit = true;
            o.harness = false;
        }
        if (o.in_exit) o.events.push_back(i);
        if (e.type == EventType::Pio && e.a == port) {
            ++out.harness_exits;
            if (o.in_exit) o.harness = true;
            else drop[i] = o.drop_next_userspace = true;
        } else if (e.type == EventType::UserspaceExit && !o.in_exit && o.drop_next_userspace) {
            drop[i] = true;
            o.drop_next_userspace = false;
        } else if (e.type == EventType::Entry && o.in_exit) {
            if (o.harness) {
                out.harness_ns.push_back(e.ts_ns >= o.exit_ns ? e.ts_ns - o.exit_ns : 0);
                for (size_t k : o.events) drop[k] = true;
            }
            o.in_exit = o.harness = false;
            o.events.clear();
        }
    }
    out.test.reserve(events.size());
    for (size_t i = 0; i < events.size(); ++i)
        if (!drop[i]) out.test.push_back(events[i]);
    return out;
}

} // namespace eb::profile
