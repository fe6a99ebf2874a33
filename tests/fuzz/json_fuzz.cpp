// libFuzzer target: the saved-result loader must reject any input with an
// exception, never crash, hang or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "result/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto j = nlohmann::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded()) return 0;
    try {
        auto r = eb::result::from_json(j);
        (void)eb::result::to_json(r);  // whatever loads must also save
    } catch (const std::exception&) {
    }
    return 0;
}
