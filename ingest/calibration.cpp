#include "ingest/calibration.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ingest/input.h"
#include "result/calibration_json.h"
#include "sys/error.h"

namespace eb::ingest {

suite::Calibration read_kept_calibration(const std::string& path) {
    auto text = read_input_file(path, 256u << 20, "kept calibration");
    suite::Calibration cal;
    try {
        auto doc = nlohmann::json::parse(text);
        if (!doc.is_object() || doc.value("schema", "") != result::kCalibrationFileSchema)
            throw InputError(fmt::format("not a kept calibration (its schema is not {})",
                                         result::kCalibrationFileSchema));
        cal = result::calibration_from_json(doc.at("calibration"));
    } catch (const InputError& e) {  // what the reader found wrong
        throw InputError(fmt::format("{}: {}", path, e.what()));
    } catch (const nlohmann::json::exception& e) {  // not JSON, or no "calibration"
        throw InputError(fmt::format("{}: {}", path, e.what()));
    }
    if (cal.tests.empty()) throw InputError(fmt::format("{}: a calibration of no test", path));
    for (const auto& t : cal.tests)
        if (auto bad = suite::invalid_reason(t); !bad.empty())
            throw InputError(fmt::format("{}: test {}: {}", path, t.test, bad));
    return cal;
}

} // namespace eb::ingest
