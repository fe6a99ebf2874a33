#include "result/host_samples_json.h"

#include <charconv>
#include <fmt/format.h>
#include <string_view>

#include "result/json_fields.h"

namespace eb::result {

namespace {

constexpr const char* kWhere = "host_samples";

json batches_json(const profile::TestHostProfile::Batches& b) {
    return {{"count", b.count}, {"iterations", b.iterations}, {"cycles", b.cycles}};
}

profile::TestHostProfile::Batches batches_from(const json& j, const char* where) {
    return {field<uint64_t>(j, "count", where), field<uint64_t>(j, "iterations", where), field<double>(j, "cycles", where)};
}

json functions_json(const profile::TestHostProfile& p, double tsc_mhz) {
    double cycles = p.sampled.cycles_per_iteration();
    double ns = tsc_mhz > 0 ? cycles / tsc_mhz * 1e3 : 0;
    json out = json::array();
    for (const auto& f : profile::function_shares(p))
        out.push_back({{"name", profile::folded_frame(f.name)},  // as "folded" names it
                       {"self", f.self},
                       {"total", f.total},
                       {"self_ns", profile::share_of(f.self, p.samples, ns).value},
                       {"total_ns", profile::share_of(f.total, p.samples, ns).value},
                       {"self_cycles", profile::share_of(f.self, p.samples, cycles).value},
                       {"total_cycles", profile::share_of(f.total, p.samples, cycles).value}});
    return out;
}

// "root;...;leaf N" (folded_stacks' line without its test) to the stack.
void add_folded(profile::TestHostProfile& p, const std::string& line) {
    auto sp = line.rfind(' ');
    uint64_t n = 0;
    const char* end = line.data() + line.size();
    if (sp == std::string::npos || std::from_chars(line.data() + sp + 1, end, n).ptr != end || n == 0)
        throw InputError(fmt::format("a folded stack of {} in host_samples is not \"frame;...;frame COUNT\"", p.test));
    std::vector<std::string> frames;  // none: " N", a chain the kernel gave no frame of
    std::string_view rest(line.data(), sp);
    for (size_t at; (at = rest.find(';')) != std::string_view::npos; rest.remove_prefix(at + 1))
        frames.emplace_back(rest.substr(0, at));
    if (sp) frames.emplace_back(rest);
    p.stacks[frames] += n;
}

} // namespace

std::optional<double> sampling_overhead_pct(const profile::TestHostProfile& p) {
    double s = p.sampled.cycles_per_iteration(), u = p.plain.cycles_per_iteration();
    if (!p.plain.count || u <= 0) return std::nullopt;
    return (s / u - 1) * 100;
}

json host_samples_json(const std::optional<profile::TestHostProfile>& hp, double tsc_mhz) {
    if (!hp) return nullptr;
    const auto& p = *hp;
    json folded = json::array();
    for (const auto& [stack, n] : p.stacks) {
        std::string line;
        for (const auto& f : stack) line += (line.empty() ? "" : ";") + profile::folded_frame(f);
        folded.push_back(fmt::format("{} {}", line, n));
    }
    json counts = nullptr;
    if (p.host_counts)
        counts = {{"instructions", p.host_counts->instructions}, {"cycles", p.host_counts->cycles},
                  {"iterations", p.host_counts->iterations}, {"batches", p.host_counts->batches}};
    auto overhead = sampling_overhead_pct(p);
    return {{"event", p.event},
            {"fallback_why", p.fallback_why},
            {"frequency_hz", p.frequency_hz},
            {"threads", p.threads},
            {"samples", p.samples},
            {"ring", {{"lost", p.counts.lost}, {"throttled", p.counts.throttled}, {"malformed", p.counts.malformed}}},
            {"sampled_batches", batches_json(p.sampled)},
            {"unsampled_batches", batches_json(p.plain)},
            {"sampled_seconds", p.sampled_seconds},
            {"max_batch_iterations", p.max_batch_iterations},
            {"host_counts", counts},
            {"counts_unavailable", p.counts_unavailable},
            {"overhead_pct", overhead ? json(*overhead) : json(nullptr)},
            {"functions", functions_json(p, tsc_mhz)},
            {"folded", folded}};
}

std::optional<profile::TestHostProfile> host_samples_from(const json& j, const std::string& test) {
    if (j.is_null()) return std::nullopt;
    profile::TestHostProfile p;
    p.test = test;
    p.event = field<std::string>(j, "event", kWhere);
    p.fallback_why = field<std::string>(j, "fallback_why", kWhere);
    p.frequency_hz = field<uint32_t>(j, "frequency_hz", kWhere);
    p.threads = field<uint32_t>(j, "threads", kWhere);
    const json& ring = member(j, "ring", kWhere);
    p.counts.lost = field<uint64_t>(ring, "lost", "host_samples.ring");
    p.counts.throttled = field<uint64_t>(ring, "throttled", "host_samples.ring");
    p.counts.malformed = field<uint64_t>(ring, "malformed", "host_samples.ring");
    p.sampled = batches_from(member(j, "sampled_batches", kWhere), "host_samples.sampled_batches");
    p.plain = batches_from(member(j, "unsampled_batches", kWhere), "host_samples.unsampled_batches");
    p.sampled_seconds = field<double>(j, "sampled_seconds", kWhere);
    p.max_batch_iterations = field<uint64_t>(j, "max_batch_iterations", kWhere);
    const json& c = member(j, "host_counts", kWhere);
    if (!c.is_null())
        p.host_counts = profile::HostCounts{field<uint64_t>(c, "instructions", "host_counts"),
                                            field<uint64_t>(c, "cycles", "host_counts"),
                                            field<uint64_t>(c, "iterations", "host_counts"),
                                            field<uint64_t>(c, "batches", "host_counts")};
    p.counts_unavailable = field<std::string>(j, "counts_unavailable", kWhere);
    for (const auto& line : field<std::vector<std::string>>(j, "folded", kWhere)) add_folded(p, line);
    // The samples are the stacks' (function_shares divides by them): a file
    // whose count disagrees is not one exitbench wrote.
    uint64_t sum = 0;
    for (const auto& [stack, n] : p.stacks) sum += n;
    if (sum != field<uint64_t>(j, "samples", kWhere))
        throw InputError(fmt::format("host_samples of {}: \"samples\" is not the folded stacks' sum", test));
    p.samples = sum;
    return p;
}

} // namespace eb::result
