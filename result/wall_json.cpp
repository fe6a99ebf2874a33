#include "sys/error.h"
#include "result/wall_json.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace eb::result {

namespace {

// Each phase's key, in the order the text output lists them.
constexpr std::pair<const char*, int64_t suite::WallSplit::*> kPhases[] = {
    {"total_s", &suite::WallSplit::total},
    {"measured_s", &suite::WallSplit::measured},
    {"warmup_s", &suite::WallSplit::warmup},
    {"vm_start_s", &suite::WallSplit::vm_start},
    {"teardown_s", &suite::WallSplit::teardown},
    {"trace_verify_s", &suite::WallSplit::trace_verify},
    {"setup_s", &suite::WallSplit::setup},
    {"watchdog_s", &suite::WallSplit::watchdog},
    {"other_s", &suite::WallSplit::other},
};

} // namespace

nlohmann::json wall_time_json(const suite::WallSplit& w) {
    nlohmann::json j = nlohmann::json::object();
    for (auto [key, field] : kPhases) j[key] = double(w.*field) / 1e9;
    return j;
}

suite::WallSplit wall_time_from(const nlohmann::json& j) {
    if (!j.is_object()) throw InputError("\"wall_time\" in the document has the wrong type or range");
    suite::WallSplit w;
    for (auto [key, field] : kPhases) {
        // A week of seconds bounds every phase: a larger value is not a run's.
        constexpr double kMaxSeconds = 7 * 86400.0;
        if (!j.contains(key)) throw InputError(std::string("missing \"") + key + "\" in wall_time");
        const auto& v = j.at(key);
        if (!v.is_number() || !std::isfinite(v.get<double>()) || std::fabs(v.get<double>()) > kMaxSeconds)
            throw InputError(std::string("\"") + key + "\" in wall_time has the wrong type or range");
        w.*field = static_cast<int64_t>(std::llround(v.get<double>() * 1e9));
    }
    return w;
}

} // namespace eb::result
