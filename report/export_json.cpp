// JSON of every subject: the schemas exitbench-run, exitbench-compare and
// exitbench-merge, and the profile analysis. Written exactly as --json always wrote them.
#include "report/compare.h"
#include "report/exporter.h"
#include "result/json.h"

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

class Json : public Exporter {
public:
    std::string render(const suite::RunReport& r) const override { return result::to_json(r).dump(2) + "\n"; }
    std::string render(const Comparison& c) const override { return comparison_json(c.report).dump(2) + "\n"; }
    std::string render(const profile::Report& p) const override { return profile::to_json(p).dump(2) + "\n"; }
    // Host names come from files and may not be UTF-8: replaced, not fatal.
    std::string render(const Merged& m) const override {
        return merged_json(m).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    }
};
} // namespace

std::unique_ptr<Exporter> json_exporter() { return std::make_unique<Json>(); }

} // namespace eb::report
