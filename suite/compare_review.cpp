#include "suite/compare_review.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>


namespace eb::suite {

namespace {

void add_once(std::vector<std::string>& v, const std::string& s) {
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

// The spread between the units of this level, from the nesting.
double unit_sd(const SideSummary& c, Unit u) {
    return u == Unit::Boot ? c.between_boot_sd : u == Unit::Load ? c.between_load_sd : c.between_run_sd;
}

// `exitbench calibrate` for these tests with the compared runs' options.
std::string calibrate_command(const ComparisonReport& out, const std::vector<std::string>& tests) {
    std::string names = tests.size() <= 6 ? fmt::format("{}", fmt::join(tests, " ")) : "TESTS";
    return fmt::format("exitbench calibrate {}{}{}", names, out.run_options.empty() ? "" : " ",
                       out.run_options.empty() ? "(with the compared runs' options)" : out.run_options);
}

// What makes a one-unit-a-side comparison testable, when no calibration plans it.
std::string how_to_test(const ComparisonReport& out, const std::vector<std::string>& tests) {
    std::string names = tests.size() <= 6 ? fmt::format("{}", fmt::join(tests, " ")) : "TESTS";
    if (out.unit == Unit::Round) return "to get a verdict: run more rounds (--rounds 8 or more)";
    if (out.unit == Unit::Load)
        return fmt::format("to test across module loads: 3 or more loads a side, e.g. exitbench compare --module "
                           "MODULE --a 'PARAM=V' --b 'PARAM=W' --loads 3 {}", names);
    if (out.unit == Unit::Boot)
        return fmt::format("to test across boots: run each side in 3 or more boots (after each boot: exitbench run "
                           "{} --label before, likewise --label after under the other side), then exitbench compare "
                           "label:before label:after; or let exitbench boot them: exitbench compare --kernel-a A "
                           "--kernel-b B --boots 3 {}", names, names);
    return fmt::format("one run a side is not testable: a run's offset (its process, its moment) is one draw per "
                       "run, which one pair cannot tell from a change, and no calibration changes that. To test "
                       "what these runs compare, interleave both configurations in one process: exitbench compare "
                       "{0} --a 'OPTIONS' --b 'OPTIONS' --rounds 8; or save 3 or more runs a side interleaved in "
                       "time (exitbench run {0} --json A1.json, then B1.json, A2.json, B2.json, A3.json, B3.json), "
                       "then exitbench compare A1.json A2.json A3.json --vs B1.json B2.json B3.json. How many runs a "
                       "chosen difference needs: {1}, then compare again", names, calibrate_command(out, tests));
}

void baseline_warning(ComparisonReport& out, const TestComparison& t, size_t k) {
    const auto& e = t.vs_first[k - 1];
    if (t.test != "baseline" || e.verdict == Verdict::NotTestable || !(e.ratio_ci.lo > 1 || e.ratio_ci.hi < 1))
        return;
    out.warnings.push_back(fmt::format(
        "the empty loop (baseline) moved {} [{}, {}] between '{}' and '{}': the host drifted, or the configuration "
        "changes the loop itself (as --per-exit does); drift of this size is not attributable to the "
        "configuration's exits", pct_change(e.ratio), pct_change(e.ratio_ci.lo), pct_change(e.ratio_ci.hi), out.labels[0],
        out.labels[k]));
}

} // namespace

void review(ComparisonReport& out) {
    std::vector<std::string> batch, dominated, only, dropped, one_unit;
    for (const auto& t : out.tests) {
        for (size_t k = 1; k < t.configs.size(); ++k) {
            const auto& e = t.vs_first[k - 1];
            if (t.configs[k].batch_sizes != t.configs[0].batch_sizes && !t.configs[k].batch_sizes.empty() &&
                !t.configs[0].batch_sizes.empty())
                batch.push_back(fmt::format("{} ({}: {}; {}: {})", t.test, out.labels[0],
                                            fmt::join(t.configs[0].batch_sizes, "/"), out.labels[k],
                                            fmt::join(t.configs[k].batch_sizes, "/")));
            if (e.verdict == Verdict::NotTestable && e.units_a > 0 && e.units_b > 0 &&
                t.configs[0].imported == t.configs[k].imported &&
                (e.units_a < min_units(out.unit) || e.units_b < min_units(out.unit)) &&
                t.test != "baseline")  // run adds the baseline itself
                add_once(one_unit, t.test);
            baseline_warning(out, t, k);
        }
        for (const auto& c : t.configs) {
            double between = unit_sd(c, out.unit);
            if (c.repeats && between > c.within_sd / std::sqrt(double(c.repeats))) add_once(dominated, t.test);
            if (c.status == "not run") only.push_back(fmt::format("{} (not under '{}')", t.test, c.label));
            if (!c.dropped.empty())
                dropped.push_back(fmt::format("{} under '{}': {} ({})", t.test, c.label, c.dropped.size(),
                                              fmt::join(c.dropped, ", ")));
        }
    }
    if (!only.empty()) out.warnings.push_back(fmt::format("partial overlap; compared where present: {}", fmt::join(only, ", ")));
    if (!dropped.empty())
        out.warnings.push_back(fmt::format("sessions left out, their median is not positive (no log of it): {}",
                                           fmt::join(dropped, "; ")));
    if (!batch.empty())
        out.warnings.push_back(fmt::format("batch sizes differ between the sides (per-iteration costs may shift with "
                                           "batch size; fix it with --iterations): {}", fmt::join(batch, ", ")));
    // Tests a calibration plans get its plan; the others, how to get one.
    std::vector<std::string> unplanned;
    for (const auto& t : one_unit)
        if (std::none_of(out.plans.begin(), out.plans.end(), [&](const Plan& p) { return p.test == t; }))
            unplanned.push_back(t);
    if (!one_unit.empty() && unplanned.size() < one_unit.size())
        out.advice.push_back("one run a side is not testable: a run's offset (its process, its moment) is one draw "
                             "per run, which one pair cannot tell from a change; a calibration plans the runs "
                             "instead:");
    if (!unplanned.empty()) out.advice.push_back(how_to_test(out, unplanned));
    constexpr size_t kShownPlans = 6;  // the rest are in the JSON's "plans"
    for (size_t i = 0; i < out.plans.size() && i < kShownPlans; ++i) out.advice.push_back(plan_line(out, out.plans[i]));
    if (out.plans.size() > kShownPlans)
        out.advice.push_back(fmt::format("and {} more tests' plans (the JSON's \"plans\")", out.plans.size() - kShownPlans));
    if (!dominated.empty())
        out.advice.push_back(fmt::format("{}-to-{} spread outweighs the repeat noise for {}: more {}s sharpen these "
                                         "comparisons, more repeats do not", unit_name(out.unit), unit_name(out.unit),
                                         fmt::join(dominated, ", "), unit_name(out.unit)));
}

} // namespace eb::suite
