#include "report/merge.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>
#include <tuple>

#include "report/sanitize.h"
#include "stats/summary.h"

namespace eb::report {

namespace {

std::string fact(const suite::RunReport& r, const char* key, const std::string& fallback) {
    for (const auto& [k, v] : r.env)
        if (k == key) return v;
    return fallback;
}

void flag_outliers(MergedTest& t) {
    if (t.hosts.size() < 3) return;
    std::vector<double> logs, dev;
    for (const auto& h : t.hosts) logs.push_back(std::log(h.cycles));
    double mid = stats::median(logs);
    for (double l : logs) dev.push_back(std::abs(l - mid));
    double mad = 1.4826 * stats::median(dev);
    double limit = std::max(3 * mad, std::log1p(kOutlierFloor));
    for (size_t i = 0; i < t.hosts.size(); ++i) t.hosts[i].outlier = dev[i] > limit;
}

MergedTest summarise(const std::string& name, std::vector<HostFigure> hosts) {
    MergedTest t{name, std::move(hosts)};
    std::vector<double> xs;
    for (const auto& h : t.hosts) xs.push_back(h.cycles);
    t.median = stats::median(xs);
    t.min = *std::min_element(xs.begin(), xs.end());
    t.max = *std::max_element(xs.begin(), xs.end());
    t.spread_pct = t.median > 0 ? (t.max - t.min) / t.median * 100 : 0;
    flag_outliers(t);
    return t;
}

// Schema versions and test sets that differ: merged anyway, and said.
void describe_inputs(const std::vector<MergeInput>& in, Merged& m) {
    std::map<int, std::vector<std::string>> versions;
    std::map<std::string, size_t> seen;
    for (const auto& i : in) {
        versions[i.run.schema_version].push_back(i.name);
        for (const auto& t : i.run.results)
            if (suite::headline(t)) seen[t.name]++;
    }
    if (versions.size() > 1)
        for (const auto& [v, files] : versions)
            m.warnings.push_back(fmt::format("warning: merging schema version {} ({}); before version 3 a file has "
                                             "no provenance, so the file name stands for its host", v, fmt::join(files, ", ")));
    std::vector<std::string> partial;
    for (const auto& [t, n] : seen)
        if (n < in.size()) partial.push_back(fmt::format("{} ({} of {} files)", t, n, in.size()));
    if (!partial.empty())
        m.warnings.push_back(fmt::format("warning: the files measured different tests; each test is merged over the "
                                         "files that have it: {}", fmt::join(partial, ", ")));
}

std::string host_name(const MergeInput& i) {
    return i.run.provenance.hostname.empty() ? i.name : i.run.provenance.hostname;
}

// What defines a machine for an exit's cost: CPU model, microcode, kernel, backend.
using GroupKey = std::tuple<std::string, std::string, std::string, std::string>;

// One group: per host its runs; per test and host the median over those runs.
MergeGroup merge_group(const GroupKey& key, const std::vector<const MergeInput*>& members, std::vector<std::string>& warnings) {
    MergeGroup g{std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key), {}, {}};
    std::map<std::string, std::map<std::string, std::vector<double>>> by_test;  // test -> host -> figures
    std::map<std::string, size_t> runs_of;
    std::vector<std::string> order;
    for (const auto* i : members) {
        std::string host = host_name(*i);
        if (runs_of[host]++ == 0) g.hosts.push_back(host);
        for (const auto& t : i->run.results)
            if (auto hl = suite::headline(t)) {
                if (!by_test.count(t.name)) order.push_back(t.name);
                by_test[t.name][host].push_back(hl->cycles);
            }
    }
    for (const auto& [host, n] : runs_of)
        if (n > 1)
            warnings.push_back(fmt::format("note: {} has {} files in one group; they count as its runs, and its "
                                           "figure per test is their median", host, n));
    for (const auto& t : order) {
        std::vector<HostFigure> hosts;
        for (const auto& h : g.hosts)
            if (auto it = by_test[t].find(h); it != by_test[t].end())
                hosts.push_back({h, stats::median(it->second), it->second.size(), false});
        g.tests.push_back(summarise(t, std::move(hosts)));
    }
    return g;
}

} // namespace

std::vector<std::string> MergedTest::outlier_notes() const {
    std::vector<std::string> out;
    for (const auto& h : hosts)
        if (h.outlier) out.push_back(fmt::format("{} {:.0f} ({:+.1f}%)", h.host, h.cycles, (h.cycles / median - 1) * 100));
    return out;
}

std::string outlier_rule() {
    return fmt::format("an outlier host is further from its group's median than 3 scaled MADs and than {:.0f}%; "
                       "a group needs 3 hosts for the test", kOutlierFloor * 100);
}

std::string group_title(const MergeGroup& g) {
    return fmt::format("{} | microcode {} | kernel {} | {}: {} host(s): {}", g.cpu_model,
                       g.microcode.empty() ? "?" : g.microcode, g.kernel, g.backend, g.hosts.size(), fmt::join(g.hosts, ", "));
}

Merged merge_runs(const std::vector<MergeInput>& in) {
    Merged m;
    describe_inputs(in, m);
    std::map<GroupKey, std::vector<const MergeInput*>> groups;
    for (const auto& i : in) {
        const auto& h = i.run.host;
        groups[{fact(i.run, "cpu.model", h.cpu_model), fact(i.run, "cpu.microcode", ""),
                fact(i.run, "kernel.release", h.kernel_release), fact(i.run, "kvm.backend", vmm::backend_name(h.backend))}]
            .push_back(&i);
    }
    for (const auto& [key, members] : groups) m.groups.push_back(merge_group(key, members, m.warnings));
    return m;
}

std::string render_merged(const Merged& m) {
    std::string out = fmt::format("exitbench report merge: {} group(s) of hosts\n", m.groups.size());
    for (const auto& w : m.warnings) out += printable(w) + "\n";
    for (const auto& g : m.groups) {
        out += "\n" + printable(group_title(g)) + "\n";
        size_t w = 4;
        for (const auto& t : g.tests) w = std::max(w, t.test.size());
        out += fmt::format("  {:<{}} {:>6} {:>12} {:>12} {:>12} {:>9}  {}\n", "test", w, "hosts", "median", "min",
                           "max", "spread%", fmt::format("outlier hosts (>3 MAD and >{:.0f}% from the median)", kOutlierFloor * 100));
        for (const auto& t : g.tests) {
            auto odd = t.outlier_notes();
            // Names come from files: shown printable, line by line.
            out += printable(fmt::format("  {:<{}} {:>6} {:>12.1f} {:>12.1f} {:>12.1f} {:>9.2f}  {}", t.test, w,
                                         t.hosts.size(), t.median, t.min, t.max, t.spread_pct,
                                         t.hosts.size() < 3 ? "-" : odd.empty() ? "none" : fmt::format("{}", fmt::join(odd, ", ")))) + "\n";
        }
    }
    return out;
}

} // namespace eb::report
