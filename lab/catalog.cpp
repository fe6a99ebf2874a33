#include "lab/catalog.h"

#include <algorithm>
#include <fmt/format.h>

#include "lab/suggest.h"
#include "sys/error.h"

namespace eb::lab {

std::vector<const TestSpec*> select_tests(const std::vector<std::string>& names, bool with_baseline) {
    std::vector<const TestSpec*> picked;
    if (names.empty()) {
        for (const auto& t : suite::registry())
            if (!t.internal) picked.push_back(&t);
        return picked;
    }
    for (const auto& n : names) {
        const auto* t = suite::find_test(n);
        if (!t) {
            std::vector<std::string> known;  // the internal ones too: a user may name them
            for (const auto& r : suite::registry()) {
                known.push_back(r.name);
                known.insert(known.end(), r.aliases.begin(), r.aliases.end());
            }
            auto s = suggest(n, known);
            throw InputError(fmt::format("unknown test '{}'{}; 'exitbench list --all' shows them", n,
                                         s ? fmt::format(" (did you mean '{}'?)", *s) : ""));
        }
        if (std::find(picked.begin(), picked.end(), t) == picked.end()) picked.push_back(t);
    }
    if (with_baseline) {
        const auto* b = suite::find_test("baseline");
        if (std::find(picked.begin(), picked.end(), b) == picked.end()) picked.push_back(b);
    }
    // Registry order, whatever order the names came in.
    std::sort(picked.begin(), picked.end(), [](auto* a, auto* b) { return a < b; });
    return picked;
}

std::vector<std::string> test_names() {
    std::vector<std::string> v;
    for (const auto& t : suite::registry())
        if (!t.internal) {
            v.push_back(t.name);
            v.insert(v.end(), t.aliases.begin(), t.aliases.end());
        }
    return v;
}

uint32_t min_vcpus(const std::string& test) {
    const auto* spec = suite::find_test(test);
    return spec ? spec->min_vcpus : 1;
}

} // namespace eb::lab
