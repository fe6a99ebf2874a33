// libFuzzer target: every parser of typed text: option values and recipes. The first byte picks the
// parser, the rest is the text. Each must accept or throw
// eb::InputError, and what it accepts must keep its promises.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "cli/parse.h"
#include "cli/recipe.h"
#include "suite/knobs.h"
#include "vmm/cpuid_features.h"
#include "sys/error.h"

namespace {

void check(bool ok) {
    if (!ok) std::abort();  // a broken promise is a finding
}

void parse_one(uint8_t which, const std::string& text) {
    using namespace eb;
    switch (which % 7) {
    case 0: {
        uint64_t n = cli::parse_count("--n", text, 3, 1000);
        check(n >= 3 && n <= 1000);
        break;
    }
    case 1: {
        double s = cli::parse_duration("--d", text);
        check(std::isfinite(s) && s > 0 && s <= cli::kMaxDuration);
        break;
    }
    case 2:
        for (int c : cli::parse_cpu_list("--pin", text)) check(c >= 0);
        break;
    case 3:
        (void)vmm::parse_cpuid_edits(text);
        break;
    case 4:
        (void)suite::parse_msr_knob(text);
        break;
    case 5:
        (void)suite::parse_efer(text);
        break;
    default:
        try {
            auto r = cli::parse_recipe(text, "fuzz.json");
            check(!r.tests.empty() && r.configs.size() >= 2);
        } catch (const eb::InputError&) {  // the recipe parser's one error type
        }
        break;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    try {
        parse_one(data[0], std::string(reinterpret_cast<const char*>(data + 1), size - 1));
    } catch (const eb::InputError&) {
    }
    return 0;
}
