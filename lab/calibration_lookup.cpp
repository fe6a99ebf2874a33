#include "lab/calibration_lookup.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>

#include "history/store.h"

namespace eb::lab {

namespace {

// Why `c` cannot stand in for these runs; empty when it can.
std::vector<std::string> why_not(const suite::Calibration& c, const std::vector<const suite::RunReport*>& runs) {
    std::set<std::string> seen;
    std::vector<std::string> out;
    for (const auto* r : runs)
        for (auto& d : suite::why_not_lend(c, *r))
            if (seen.insert(d).second) out.push_back(d);
    return out;
}

std::set<std::string> shared_tests(const std::vector<std::vector<suite::RunReport>>& sides) {
    std::map<std::string, size_t> count;
    for (const auto& side : sides) {
        std::set<std::string> names;
        for (const auto& r : side)
            for (const auto& t : r.results) names.insert(t.name);
        for (const auto& n : names) ++count[n];
    }
    std::set<std::string> out;
    for (const auto& [n, k] : count)
        if (k == sides.size()) out.insert(n);
    return out;
}

} // namespace

Lookup find_calibrations(const std::string& db, const std::vector<std::vector<suite::RunReport>>& sides) {
    Lookup out;
    if (std::none_of(sides.begin(), sides.end(), [](const auto& s) { return s.size() == 1; })) return out;
    std::vector<const suite::RunReport*> runs;
    for (const auto& side : sides)
        for (const auto& r : side) {
            if (r.provenance.imported) return out;  // no host to match
            runs.push_back(&r);
        }
    std::vector<suite::Calibration> cals;
    try {
        std::string path = db.empty() ? history::default_path() : db;
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) return out;
        cals = history::Store(path, history::Store::Mode::ReadOnly).calibrations(runs.front()->provenance.hostname);
    } catch (const history::StoreError& e) {
        out.warnings.push_back(fmt::format("no calibration read: {}", e.what()));
        return out;
    }
    std::map<std::string, std::vector<std::string>> unused;  // why -> tests
    for (const auto& test : shared_tests(sides)) {
        std::string first_why;
        for (const auto& c : cals) {
            auto t = std::find_if(c.tests.begin(), c.tests.end(), [&](const auto& x) { return x.test == test; });
            if (t == c.tests.end()) continue;
            auto why = why_not(c, runs);
            if (why.empty()) {
                out.spreads[test] = suite::lend(c).at(test);
                first_why.clear();
                break;
            }
            if (first_why.empty())
                first_why = fmt::format("the calibration of {} (id {}): {}", c.timestamp_utc, c.id, fmt::join(why, "; "));
        }
        if (!first_why.empty()) unused[first_why].push_back(test);
    }
    for (const auto& [why, tests] : unused)
        out.warnings.push_back(fmt::format("not using {} for {}; one run a side stays not testable there",
                                           why, fmt::join(tests, ", ")));
    return out;
}

} // namespace eb::lab
