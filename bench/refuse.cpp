// How fast a bad argument is refused: what the option fuzz (tests/integration/
// robustness_options.cpp) runs a few thousand times, timed here instead of in
// the test. The floor is the same binary's `--version`: start-up and exit.
#include <fmt/format.h>
#include <string>
#include <vector>

#include "bench/common.h"
#include "bench/sections.h"
#include "stats/summary.h"

namespace eb::bench {

namespace {

// The median wall time of `cmd` over `n` invocations, in milliseconds.
double median_ms(const std::vector<std::string>& argv, int n) {
    std::vector<double> ms;
    for (int i = 0; i < n; ++i) ms.push_back(run_quiet(argv).wall_s * 1e3);
    return stats::median(ms);
}

} // namespace

void section_refuse(const std::string& exitbench) {
    constexpr int kN = 40;
    fmt::print("a refused argument, wall time per invocation (ms), median of {} each; the floor is --version:\n", kN);
    double floor = median_ms({exitbench, "--version"}, kN);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"run --iterations -1", "--device /dev/null run --iterations -1"},
        {"compare --fail-if-slower x", "--device /dev/null compare --fail-if-slower x"},
        {"history list --db a-directory", "history list --db /"},
        {"unknown option", "run --no-such-option"},
    };
    double worst = 0;
    for (const auto& [label, args] : cases) {
        auto argv = words(args);
        argv.insert(argv.begin(), exitbench);
        double ms = median_ms(argv, kN);
        worst = std::max(worst, ms / floor);
        print_ratio(label, ms, floor, "ms");
    }
    print_verdict("refusal", worst <= 2, fmt::format("worst {:.2f}x --version", worst), "<= 2x --version");
}

} // namespace eb::bench
