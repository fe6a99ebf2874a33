#include "result/calibration_json.h"

#include <cmath>
#include <stdexcept>

#include "sys/error.h"

namespace eb::result {

using nlohmann::json;

namespace {

const char* kLevels[] = {"repeat", "session", "run", "run_mean", "session_median"};

std::vector<stats::Component*> components(stats::LevelTable& l) {
    return {&l.repeat, &l.session, &l.run, &l.run_mean, &l.session_median};
}

json test_to_json(const suite::TestCalibration& t) {
    json levels;
    auto l = t.levels;
    auto cs = components(l);
    for (size_t i = 0; i < cs.size(); ++i) levels[kLevels[i]] = {{"var", cs[i]->var}, {"df", cs[i]->df}};
    return {{"test", t.test},
            {"levels", levels},
            {"inv_sessions", l.inv_sessions},
            {"mean_repeats", l.repeats},
            {"used_runs", l.runs},
            {"used_sessions", l.sessions},
            {"costs_s", {{"run", t.costs.run}, {"session", t.costs.session}, {"repeat", t.costs.repeat}}},
            {"session_logs", t.session_logs}};
}

// A number as stored: JSON has no NaN, so nlohmann writes null for one; it reads back as NaN.
double number(const json& j, const char* key) {
    const auto& v = j.at(key);
    if (v.is_null()) return std::nan("");
    if (!v.is_number()) throw InputError(std::string("'") + key + "' is not a number");
    return v.get<double>();
}

suite::TestCalibration test_from_json(const json& j) {
    suite::TestCalibration t;
    t.test = j.at("test").get<std::string>();
    auto& l = t.levels;
    auto cs = components(l);
    for (size_t i = 0; i < cs.size(); ++i) {
        const auto& c = j.at("levels").at(kLevels[i]);
        *cs[i] = {number(c, "var"), number(c, "df")};
    }
    l.inv_sessions = number(j, "inv_sessions");
    l.repeats = number(j, "mean_repeats");
    l.runs = j.at("used_runs").get<size_t>();
    l.sessions = j.at("used_sessions").get<size_t>();
    const auto& c = j.at("costs_s");
    t.costs = {number(c, "run"), number(c, "session"), number(c, "repeat")};
    t.session_logs = j.at("session_logs").get<std::vector<std::vector<double>>>();
    return t;
}

} // namespace

json calibration_to_json(const suite::Calibration& c) {
    json tests = json::array();
    for (const auto& t : c.tests) tests.push_back(test_to_json(t));
    const auto& id = c.identity;
    return {{"timestamp_utc", c.timestamp_utc}, {"boot_id", c.boot_id}, {"tool_version", c.tool_version},
            {"identity", {{"hostname", id.hostname}, {"kernel_release", id.kernel_release}, {"backend", id.backend},
                          {"cpu_model", id.cpu_model}, {"settings", id.settings}}},
            {"runs", c.runs}, {"sessions", c.sessions}, {"repeats", c.repeats}, {"tests", tests}};
}

suite::Calibration calibration_from_json(const json& j) {
    try {
        suite::Calibration c;
        c.timestamp_utc = j.at("timestamp_utc").get<std::string>();
        c.boot_id = j.at("boot_id").get<std::string>();
        c.tool_version = j.at("tool_version").get<std::string>();
        const auto& id = j.at("identity");
        c.identity = {id.at("hostname").get<std::string>(), id.at("kernel_release").get<std::string>(),
                      id.at("backend").get<std::string>(), id.at("cpu_model").get<std::string>(),
                      id.at("settings").get<std::string>()};
        c.runs = j.at("runs").get<size_t>();
        c.sessions = j.at("sessions").get<size_t>();
        c.repeats = j.at("repeats").get<size_t>();
        for (const auto& t : j.at("tests")) c.tests.push_back(test_from_json(t));
        return c;
    } catch (const json::exception& e) {
        throw InputError(std::string("not a calibration: ") + e.what());
    }
}

} // namespace eb::result
