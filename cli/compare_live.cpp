#include "cli/compare_live.h"
#include "cli/emit.h"

#include <fmt/format.h>
#include <random>
#include <unistd.h>

#include "cli/errors.h"
#include "cli/parse.h"
#include "cli/progress.h"

namespace eb::cli {

namespace {

// A configuration's run options are split into words once, here; a recipe's
// come as words already.
struct Config {
    std::string label;
    std::vector<std::string> words;
    std::string shown;  // as the user wrote it, for the header
};

Config from_text(std::string label, const std::string& options) {
    return {std::move(label), split_args(options), options};
}

std::vector<Config> configurations(const CompareArgs& a) {
    std::vector<Config> cfgs;
    for (const auto& [label, words] : a.preset) cfgs.push_back({label, words, fmt::format("{}", fmt::join(words, " "))});
    if (a.a || a.b) {
        if (!a.a || !a.b) throw UsageError("--a and --b go together");
        cfgs = {from_text("A", *a.a), from_text("B", *a.b)};
    }
    for (const auto& c : a.configs) {
        auto eq = c.find('=');
        if (eq == std::string::npos || eq == 0) throw UsageError("--config takes LABEL=OPTIONS, not '" + c + "'");
        cfgs.push_back(from_text(c.substr(0, eq), c.substr(eq + 1)));
    }
    if (cfgs.size() < 2)
        throw UsageError("compare needs saved result files (A.json B.json, or A1.json ... --vs B1.json ...), or "
                         "--a/--b (or two --config) to run live");
    return cfgs;
}

lab::LiveSchedule schedule(const CompareArgs& a) {
    lab::LiveSchedule s;
    s.rounds = a.rounds.empty() ? (a.time_budget.empty() ? lab::kDefaultRounds : 1000)
                                : parse_positive("--rounds", a.rounds);
    s.budget_s = a.time_budget.empty() ? 0 : parse_duration("--time-budget", a.time_budget);
    // Strict: "5x" is not 5. Without --time-budget the precision has nothing to steer.
    if (!a.precision.empty() && a.time_budget.empty())
        throw UsageError("--precision steers --time-budget's stop rule; give --time-budget too");
    double pct = a.precision.empty() ? 1 : parse_number("--precision", a.precision, 0.001, 100);
    s.precision = pct / 100;
    s.seed = a.seed.empty() ? std::random_device{}() : parse_positive("--seed", a.seed);
    return s;
}

// "round 3 of 8 done (12.0 s, about 20 s left)" on a terminal's stderr.
void show_round(uint64_t done, uint64_t rounds, double elapsed_s, double left_s) {
    fmt::print(stderr, "round {} of {} done ({:.1f} s{})\n", done, rounds, elapsed_s,
               done < rounds ? ", about " + Progress::duration_text(left_s) + " left" : "");
}

} // namespace

lab::ComparisonReport run_live(const std::string& device, const CompareArgs& a, double alpha,
                                 const std::atomic<bool>& interrupt, std::vector<std::string>& header,
                                 lab::LiveRuns& ran, lab::RoundHooks* hooks) {
    if (!a.common.sessions.empty())
        throw UsageError("--sessions does not apply to compare: every round is one session per configuration; "
                         "use --rounds");
    auto cfgs = configurations(a);
    auto sched = schedule(a);
    std::vector<lab::LiveConfig> live;
    for (const auto& c : cfgs) live.push_back({c.label, c.shown, plan_config(c.label, c.words, a.common)});
    auto sys = lab::open_kvm(device);
    return lab::run_live(sys, live, sched, alpha, interrupt, header, &ran,
                         isatty(STDERR_FILENO) && !quiet() ? lab::RoundObserver(show_round) : lab::RoundObserver(), hooks);
}

} // namespace eb::cli
