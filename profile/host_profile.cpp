#include "profile/host_profile.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

namespace eb::profile {

void TestHostProfile::add(const std::vector<std::string>& root_first, uint64_t n) {
    stacks[root_first] += n;
    samples += n;
}

void TestHostProfile::merge(const TestHostProfile& o) {
    for (const auto& [stack, n] : o.stacks) add(stack, n);
    counts.samples += o.counts.samples;
    counts.lost += o.counts.lost;
    counts.throttled += o.counts.throttled;
    counts.malformed += o.counts.malformed;
    counts.other += o.counts.other;
    threads = std::max(threads, o.threads);
    for (auto [mine, theirs] : {std::pair{&sampled, &o.sampled}, std::pair{&plain, &o.plain}}) {
        mine->count += theirs->count;
        mine->iterations += theirs->iterations;
        mine->cycles += theirs->cycles;
    }
    sampled_seconds += o.sampled_seconds;
    if (o.host_counts) {
        if (!host_counts) host_counts.emplace();
        *host_counts += *o.host_counts;
    }
    if (counts_unavailable.empty()) counts_unavailable = o.counts_unavailable;
    if (!o.event.empty()) event = o.event, fallback_why = o.fallback_why;
    max_batch_iterations = std::max(max_batch_iterations, o.max_batch_iterations);
}

std::vector<FunctionShare> function_shares(const TestHostProfile& p) {
    std::unordered_map<std::string, FunctionShare> by_name;
    std::set<std::string> seen;
    for (const auto& [stack, n] : p.stacks) {
        if (stack.empty()) continue;
        seen.clear();
        for (const auto& f : stack)
            if (seen.insert(f).second) {
                auto& s = by_name[f];
                s.name = f;
                s.total += n;
            }
        by_name[stack.back()].self += n;
    }
    std::vector<FunctionShare> out;
    out.reserve(by_name.size());
    for (auto& [_, s] : by_name) out.push_back(std::move(s));
    std::sort(out.begin(), out.end(), [](const FunctionShare& a, const FunctionShare& b) {
        if (a.total != b.total) return a.total > b.total;
        if (a.self != b.self) return a.self > b.self;
        return a.name < b.name;
    });
    return out;
}

Estimate share_of(uint64_t k, uint64_t n, double cost) {
    if (n == 0) return {};
    double p = double(k) / double(n);
    return {p * cost, std::sqrt(p * (1 - p) / double(n)) * cost};
}

std::string folded_frame(std::string f) {
    for (char& c : f)
        if (c == ';') c = ':';
        else if (c == '\n' || c == '\r') c = ' ';
    return f;
}

std::string folded_stacks(const std::vector<TestHostProfile>& profiles) {
    std::string out;
    for (const auto& p : profiles)
        for (const auto& [stack, n] : p.stacks) {
            out += folded_frame(p.test);
            for (const auto& f : stack) out += ";" + folded_frame(f);
            out += fmt::format(" {}\n", n);
        }
    return out;
}

} // namespace eb::profile
