// A profile Report as JSON (what `profile report --format json` and the
// exporters write).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "profile/analyze.h"

namespace eb::profile {

nlohmann::json to_json(const Report& r) {
    using nlohmann::json;
    json rows = json::array();
    for (const Row& row : r.rows) {
        json j = {{"name", row.name},
                  {"tracepoint", event_type_name(row.type)},
                  {"key", row.key},
                  {"info", row.info},
                  {"timed", row.timed},
                  {"count", row.count}};
        json vcpus = json::array();
        for (const VcpuStat& v : row.vcpus) {
            json jv = {{"vcpu", v.vcpu}, {"count", v.count}};
            if (row.timed) {
                jv["total_ns"] = v.total_ns;
                jv["mean_ns"] = v.mean_ns();
                jv["min_ns"] = v.min_ns;
                jv["max_ns"] = v.max_ns;
            }
            vcpus.push_back(jv);
        }
        if (row.timed) {
            json hist = json::array();
            for (size_t k = 0; k < row.log2_hist.size(); ++k)
                if (row.log2_hist[k])
                    hist.push_back({{"lo_ns", k ? uint64_t(1) << (k - 1) : 0},
                                    {"hi_ns", k < 64 ? json(uint64_t(1) << k) : json(18446744073709551615.0)},
                                    {"count", row.log2_hist[k]}});
            j["total_ns"] = row.total_ns;
            j["min_ns"] = row.min_ns;
            j["max_ns"] = row.max_ns;
            j["mean_ns"] = row.mean_ns;
            j["stddev_ns"] = row.stddev_ns();
            j["rel_sem_pct"] = row.rel_sem_pct();
            bool summary = !r.imported.empty();
            j["p50_ns"] = summary ? json(nullptr) : json(row.p50_ns);
            j["p99_ns"] = summary ? json(nullptr) : json(row.p99_ns);
            j["log2_hist"] = summary ? json(nullptr) : hist;
        }
        j["vcpus"] = vcpus;
        rows.push_back(j);
    }
    json events = json::object();
    for (uint8_t t = kFirstEventType; t <= kLastEventType; ++t)
        events[std::string(event_type_name(EventType(t)))] = r.events_by_type[t];
    if (r.events_by_type[0]) events["invalid"] = r.events_by_type[0];
    return {{"mode", mode_name(r.mode)},
            {"vcpu", r.vcpu ? json(*r.vcpu) : json(nullptr)},
            {"sort", r.sort},
            {"isa", r.isa},
            {"backend", r.backend},
            {"degraded", r.degraded.empty() ? json(nullptr) : json(r.degraded)},
            {"imported", r.imported.empty() ? json(nullptr) : json(r.imported)},
            {"total_samples", r.total_samples},
            {"total_time_ns", r.total_time_ns},
            {"lost_events", r.lost_events},
            {"dropped",
             {{"total", r.dropped.total()},
              {"no_begin", r.dropped.no_begin},
              {"end_before_begin", r.dropped.end_before_begin},
              {"no_end", r.dropped.no_end},
              {"lost_gap", r.dropped.lost_gap}}},
            {"unpaired_at_start", r.unpaired_at_start},
            {"in_flight_at_end", r.in_flight_at_end},
            {"out_of_order", r.out_of_order},
            {"events", events},
            {"rows", rows}};
}

} // namespace eb::profile
