#include "suite/compare.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

#include "stats/summary.h"

namespace eb::suite {

namespace {

int severity(Status s) { return is_failure(s) ? 3 : s == Status::Skipped ? 2 : s == Status::Interrupted ? 1 : 0; }

ConfigSummary summarize(const std::string& label, std::vector<double> xs, const std::string& status) {
    ConfigSummary c;
    c.label = label;
    c.status = status;
    c.samples = std::move(xs);
    if (c.samples.empty()) return c;
    c.median = stats::median(c.samples);
    c.median_ci = stats::median_ci(c.samples);
    c.ci_coverage = stats::median_ci_coverage(c.samples.size());
    if (c.samples.size() >= 2 && stats::mean(c.samples) != 0) c.cv = stats::cv(c.samples);
    auto o = stats::outliers(c.samples);
    c.outliers = o.low.size() + o.high.size();
    return c;
}

} // namespace

ComparisonReport compare_runs(const std::vector<std::string>& labels,
                              const std::vector<std::vector<RunReport>>& runs, double alpha) {
    ComparisonReport out;
    out.labels = labels;
    // test -> per config: pooled samples and worst status; test order from config 0.
    std::vector<std::string> order;
    for (size_t k = 0; k < runs.size(); ++k)
        for (const auto& rep : runs[k])
            for (const auto& t : rep.results)
                for (const auto& w : t.warnings) {
                    auto line = fmt::format("{}: {}: {}", labels[k], t.name, w);
                    if (std::find(out.warnings.begin(), out.warnings.end(), line) == out.warnings.end())
                        out.warnings.push_back(line);
                }
    std::vector<std::map<std::string, std::pair<std::vector<double>, Status>>> pooled(runs.size());
    for (size_t k = 0; k < runs.size(); ++k)
        for (const auto& rep : runs[k])
            for (const auto& t : rep.results) {
                if (k == 0 && std::find(order.begin(), order.end(), t.name) == order.end()) order.push_back(t.name);
                auto [it, fresh] = pooled[k].try_emplace(t.name, std::vector<double>{}, t.status);
                auto& [xs, st] = it->second;
                xs.insert(xs.end(), t.samples.begin(), t.samples.end());
                if (!fresh && severity(t.status) > severity(st)) st = t.status;
            }
    for (size_t k = 1; k < runs.size(); ++k)
        for (const auto& [name, _] : pooled[k])
            if (!pooled[0].count(name))
                out.warnings.push_back(fmt::format("{} ran only under '{}'; not compared", name, labels[k]));
    for (const auto& name : order) {
        TestComparison tc;
        tc.test = name;
        bool everywhere = true;
        for (size_t k = 0; k < runs.size(); ++k) {
            auto it = pooled[k].find(name);
            if (it == pooled[k].end()) {
                out.warnings.push_back(fmt::format("{} ran only under '{}'; not compared", name, labels[0]));
                everywhere = false;
                break;
            }
            tc.configs.push_back(summarize(labels[k], it->second.first, status_name(it->second.second)));
        }
        if (!everywhere) continue;
        bool comparable = std::all_of(tc.configs.begin(), tc.configs.end(),
                                      [](const auto& c) { return c.samples.size() >= 2; });
        if (comparable) {
            for (size_t k = 1; k < tc.configs.size(); ++k)
                tc.vs_first.push_back(stats::compare(tc.configs[0].samples, tc.configs[k].samples, alpha));
        } else {
            out.warnings.push_back(fmt::format("{}: too few samples to compare (skipped, failed or hung)", name));
        }
        out.tests.push_back(std::move(tc));
    }
    if (out.tests.empty()) out.warnings.push_back("no test ran under every configuration");
    return out;
}

std::vector<std::string> host_differences(const RunReport& a, const RunReport& b) {
    std::vector<std::string> d;
    auto check = [&](const char* what, const std::string& x, const std::string& y) {
        if (x != y) d.push_back(fmt::format("{}: '{}' vs '{}'", what, x, y));
    };
    check("CPU", a.host.cpu_model, b.host.cpu_model);
    check("kernel", a.host.kernel_release, b.host.kernel_release);
    check("KVM backend", vmm::backend_name(a.host.backend), vmm::backend_name(b.host.backend));
    auto fact = [](const RunReport& r, const std::string& key) {
        for (const auto& [k, v] : r.env)
            if (k == key) return v;
        return std::string("(not recorded)");
    };
    check("microcode", fact(a, "cpu.microcode"), fact(b, "cpu.microcode"));
    check("kernel command line", fact(a, "kernel.cmdline"), fact(b, "kernel.cmdline"));
    return d;
}

} // namespace eb::suite
