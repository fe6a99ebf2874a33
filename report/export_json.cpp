// JSON of every subject: the schemas exitbench-run, exitbench-compare and
// exitbench-merge, and the profile analysis. Written exactly as --json always wrote them.
#include "report/compare.h"
#include "report/exporter.h"
#include "result/json.h"

#include "report/host_diff_export.h"

namespace eb::report {

namespace {

using nlohmann::json;

// schema exitbench-merge: the groups of hosts, per test its spread and each host's figure.
json merged_json(const Merged& m) {
    json groups = json::array();
    for (const auto& g : m.groups) {
        json tests = json::array();
        for (const auto& t : g.tests) {
            json hosts = json::array();
            for (const auto& h : t.hosts)
                hosts.push_back({{"host", h.host}, {"cycles", h.cycles}, {"runs", h.runs}, {"outlier", h.outlier}});
            tests.push_back({{"test", t.test}, {"median", t.median}, {"min", t.min}, {"max", t.max},
                             {"spread_pct", t.spread_pct}, {"outliers_judged", t.hosts.size() >= 3}, {"hosts", hosts}});
        }
        groups.push_back({{"cpu_model", g.cpu_model}, {"microcode", g.microcode}, {"kernel", g.kernel},
                          {"backend", g.backend}, {"hosts", g.hosts}, {"tests", tests}});
    }
    return {{"schema", "exitbench-merge"}, {"version", 1}, {"outlier_rule", outlier_rule()},
            {"warnings", m.warnings}, {"groups", groups}};
}

// schema exitbench-profile-compare: per key, old and new side by side, the
// shifts and, with several traces a side, the test across them.
json profile_comparison_json(const ProfileComparison& c) {
    json keys = json::array();
    for (const auto& k : c.changes)
        keys.push_back({{"name", k.name}, {"key", k.key}, {"info", k.info},
                        {"old", {{"count", k.old_count}, {"share_pct", k.old_share_pct}, {"mean_ns", k.old_mean_ns},
                                 {"p50_ns", k.old_p50_ns}, {"p99_ns", k.old_p99_ns}, {"traces", k.old_traces}}},
                        {"new", {{"count", k.new_count}, {"share_pct", k.new_share_pct}, {"mean_ns", k.new_mean_ns},
                                 {"p50_ns", k.new_p50_ns}, {"p99_ns", k.new_p99_ns}, {"traces", k.new_traces}}},
                        {"timed", k.timed}, {"summary_only", k.summary_only},
                        {"shift", {{"mean", k.mean_rel}, {"p50", k.p50_rel}, {"p99", k.p99_rel}}},
                        {"tested", k.tested}, {"ratio", k.ratio}, {"ci95", {k.ci_lo, k.ci_hi}}, {"p", k.p},
                        {"p_holm", k.p_holm}, {"verdict", k.verdict}});
    return {{"schema", "exitbench-profile-compare"}, {"version", 1}, {"event", std::string(profile::mode_name(c.mode))},
            {"keys", keys}};
}

class Json : public Exporter {
public:
    std::string render(const suite::RunReport& r) const override { return result::to_json(r).dump(2) + "\n"; }
    std::string render(const Comparison& c) const override { return comparison_json(c.report).dump(2) + "\n"; }
    std::string render(const profile::Report& p) const override { return profile::to_json(p).dump(2) + "\n"; }
    // Key names come from traces: replaced where not UTF-8, not fatal.
    std::string render(const ProfileComparison& c) const override {
        return profile_comparison_json(c).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    }
    // Function names come from symbol tables: replaced where not UTF-8.
    std::string render(const HostProfileComparison& c) const override {
        return host_diff_json(c.diff).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    }
    // Host names come from files and may not be UTF-8: replaced, not fatal.
    std::string render(const Merged& m) const override {
        return merged_json(m).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    }
};
} // namespace

std::unique_ptr<Exporter> json_exporter() { return std::make_unique<Json>(); }

} // namespace eb::report
