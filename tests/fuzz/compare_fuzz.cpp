// libFuzzer target: two fuzzed saved results (split at the first NUL byte)
// through the whole saved-result A/B path: loading, the
// session-level comparison and both of its renderings. Bad files must be
// refused with an exception; whatever loads must compare without crashing.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "report/compare.h"
#include "result/json.h"
#include "suite/compare.h"

namespace {

bool load(const std::string& text, eb::suite::RunReport& out) {
    try {
        std::istringstream in(text);
        out = eb::result::from_json(eb::result::parse_document(in, "fuzz.json"));
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string all(reinterpret_cast<const char*>(data), size);
    auto nul = all.find('\0');
    if (nul == std::string::npos) return 0;
    eb::suite::RunReport a, b;
    if (!load(all.substr(0, nul), a) || !load(all.substr(nul + 1), b)) return 0;
    auto cmp = eb::suite::compare_saved({"A", "B"}, {{a}, {b}});
    (void)eb::report::render_comparison(cmp);
    (void)eb::report::comparison_json(cmp).dump();
    auto rounds = eb::suite::compare_rounds({"A", "B"}, {{a, b}, {b, a}});
    (void)eb::report::render_comparison(rounds);
    return 0;
}
