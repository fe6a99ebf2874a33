#include "lab/calibration_lookup.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>

#include "history/store.h"

namespace eb::lab {

namespace {

// Seconds since the epoch of "YYYY-MM-DDTHH:MM:SS[Z]"; nullopt if it is not
// exactly that, or names no real time (month 13, February 30).
std::optional<double> epoch(const std::string& iso) {
    std::tm tm{};
    int end = 0;
    if (iso.size() < 19 || std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                                       &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &end) != 6 || end != 19)
        return std::nullopt;
    if (iso.size() != 19 && iso.substr(19) != "Z") return std::nullopt;
    std::tm asked = tm;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    time_t t = timegm(&tm);  // normalises tm: a field out of range shows as a change
    if (tm.tm_year + 1900 != asked.tm_year || tm.tm_mon + 1 != asked.tm_mon || tm.tm_mday != asked.tm_mday ||
        tm.tm_hour != asked.tm_hour || tm.tm_min != asked.tm_min || tm.tm_sec != asked.tm_sec)
        return std::nullopt;
    return double(t);
}

// A clock set back, or a store edited: a calibration "made" after now is
// refused (an hour's slack for clocks a little apart across hosts).
constexpr double kFutureSlackS = 3600;

// Why `c` cannot plan these runs; empty when it can.
std::vector<std::string> why_not(const suite::Calibration& c, const std::vector<const suite::RunReport*>& runs) {
    std::set<std::string> seen;
    std::vector<std::string> out;
    for (const auto* r : runs)
        for (auto& d : suite::why_not_plan(c, *r))
            if (seen.insert(d).second) out.push_back(d);
    auto made = epoch(c.timestamp_utc);
    if (!made) {
        out.push_back(fmt::format("its timestamp '{}' is not a UTC time (YYYY-MM-DDTHH:MM:SSZ), so its age is "
                                  "unknown", c.timestamp_utc));
        return out;
    }
    if (*made > double(std::time(nullptr)) + kFutureSlackS) {
        out.push_back(fmt::format("its timestamp {} is in the future, so its age is unknown", c.timestamp_utc));
        return out;
    }
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
            // A damaged row is said and skipped: an older good one still serves.
            if (auto bad = suite::invalid_reason(*t); !bad.empty()) {
                out.warnings.push_back(fmt::format("calibration {} ({}), test {}: an unusable row ({}); ignored",
                                                   c.id, c.timestamp_utc, test, bad));
                continue;
            }
            auto why = why_not(c, runs);
            if (why.empty()) {
                auto& spread = out.spreads[test] = suite::lend(c).at(test);
                spread.age_s = std::max(0.0, double(std::time(nullptr)) - epoch(c.timestamp_utc).value_or(0));
                spread.same_boot = std::all_of(runs.begin(), runs.end(), [&](const suite::RunReport* r) {
                    return !c.boot_id.empty() && r->provenance.boot_id == c.boot_id;
                });
                first_why.clear();
                break;
            }
            if (first_why.empty())
                first_why = fmt::format("the calibration of {} (id {}): {}", c.timestamp_utc, c.id, fmt::join(why, "; "));
        }
        if (!first_why.empty()) unused[first_why].push_back(test);
    }
    for (const auto& [why, tests] : unused)
        out.warnings.push_back(fmt::format("no plan from {} for {}: it describes other runs", why,
                                           fmt::join(tests, ", ")));
    return out;
}

} // namespace eb::lab
