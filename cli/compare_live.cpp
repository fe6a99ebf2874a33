#include "cli/compare_live.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <numeric>
#include <unistd.h>

#include "cli/errors.h"
#include "cli/history.h"
#include "cli/parse.h"
#include "cli/progress.h"
#include "suite/stop_rule.h"

namespace eb::cli {

std::vector<size_t> round_order(size_t configs, uint64_t round, std::mt19937_64& rng) {
    std::vector<size_t> order(configs);
    std::iota(order.begin(), order.end(), 0);
    if (configs == 2) {
        if (round % 2) std::swap(order[0], order[1]);
    } else {
        std::shuffle(order.begin(), order.end(), rng);
    }
    return order;
}

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

struct Schedule {
    uint64_t rounds;
    double budget_s, precision;
    uint64_t seed;
};

Schedule schedule(const CompareArgs& a) {
    Schedule s;
    s.rounds = a.rounds.empty() ? (a.time_budget.empty() ? kDefaultRounds : 1000) : parse_positive("--rounds", a.rounds);
    s.budget_s = a.time_budget.empty() ? 0 : parse_duration("--time-budget", a.time_budget);
    double pct = 0;
    try {
        pct = std::stod(a.precision);
    } catch (const std::exception&) {
        pct = -1;
    }
    if (!(pct >= 0.001 && pct <= 100)) throw UsageError("--precision needs a percentage in [0.001, 100], not '" + a.precision + "'");
    s.precision = pct / 100;
    s.seed = a.seed.empty() ? std::random_device{}() : parse_positive("--seed", a.seed);
    return s;
}

// Two stages: the pilot fixes the number of rounds and is then set aside, so
// the rounds analysed are independent of the choice. Returns what it fixed.
std::string after_pilot(Schedule& sched, const std::vector<std::string>& labels,
                        std::vector<std::vector<suite::RunReport>>& rounds, double alpha) {
    sched.rounds = suite::planned_rounds(suite::compare_rounds(labels, rounds, alpha), sched.precision, sched.rounds);
    for (auto& r : rounds) r.clear();
    return fmt::format("two-stage: a {}-round pilot (not analysed) fixed {} rounds for +-{:g}%", suite::kPilotRounds,
                       sched.rounds, sched.precision * 100);
}

} // namespace

suite::ComparisonReport run_live(const std::string& device, const CompareArgs& a, double alpha,
                                 const std::atomic<bool>& interrupt, std::vector<std::string>& header,
                                 LiveRuns* ran, CompareHostProfile* host) {
    if (!a.common.sessions.empty())
        throw UsageError("--sessions does not apply to compare: every round is one session per configuration; "
                         "use --rounds");
    auto cfgs = configurations(a);
    auto sched = schedule(a);
    std::vector<RunPlan> plans;
    std::vector<std::string> labels;
    for (const auto& c : cfgs) {
        plans.push_back(plan_config(c.label, c.words, a.common));
        labels.push_back(c.label);
        header.push_back(fmt::format("  {}: {}", c.label, c.shown.empty() ? "(defaults)" : c.shown));
    }
    auto sys = open_kvm(device);
    std::vector<std::vector<suite::RunReport>> rounds(plans.size());
    std::mt19937_64 rng(sched.seed);
    auto t0 = std::chrono::steady_clock::now();
    uint64_t done = 0;
    std::string plan;  // with --time-budget: what the pilot fixed
    while (done < sched.rounds && !interrupt.load()) {
        for (size_t k : round_order(plans.size(), done, rng)) {
            if (interrupt.load()) break;
            rounds[k].push_back(execute(sys, plans[k], interrupt, false, host ? host->starting(k) : nullptr));
            if (host) host->finished(k);
        }
        if (interrupt.load()) break;  // a round cut short is no pair
        ++done;
        double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (isatty(STDERR_FILENO)) {
            // The budget ends the rounds first when it is shorter than their pace.
            double left = double(sched.rounds - done) * elapsed / double(done);
            if (sched.budget_s > 0) left = std::min(left, std::max(0.0, sched.budget_s - elapsed));
            fmt::print(stderr, "round {} of {} done ({:.1f} s{})\n", done, sched.rounds, elapsed,
                       done < sched.rounds ? ", about " + Progress::duration_text(left) + " left" : "");
        }
        if (sched.budget_s > 0 && done == suite::kPilotRounds && plan.empty()) {
            plan = after_pilot(sched, labels, rounds, alpha);
            if (host) host->keep_rounds(0);
            done = 0;
            continue;
        }
        if (sched.budget_s > 0 && elapsed >= sched.budget_s) {
            if (!plan.empty() && done < sched.rounds) plan += fmt::format("; the budget ended it after {}", done);
            break;
        }
    }
    for (auto& r : rounds) r.resize(std::min<size_t>(r.size(), done));
    if (host) host->keep_rounds(done);
    std::string order = plans.size() == 2 ? "alternating AB, BA" : fmt::format("shuffled per round, --seed {}", sched.seed);
    header.insert(header.begin(), fmt::format("{} configurations, {} round{} interleaved ({}), each round one fresh "
                                              "VM per test and configuration{}{}",
                                              plans.size(), done, done == 1 ? "" : "s", order, plan.empty() ? "" : "; ",
                                              plan));
    auto cmp = suite::compare_rounds(labels, rounds, alpha);
    if (ran) {
        ran->labels = labels;
        for (const auto& c : cfgs) ran->shown.push_back(c.shown);
        ran->rounds = std::move(rounds);
    }
    return cmp;
}

suite::RunReport merge_rounds(const std::vector<suite::RunReport>& rounds) {
    if (rounds.empty()) throw std::invalid_argument("merge_rounds: no round");
    suite::RunReport out = rounds.front();  // its provenance, host and settings stand for all
    out.settings.sessions = uint32_t(rounds.size());
    out.results.clear();
    for (const auto& first : rounds.front().results) {
        std::vector<suite::TestResult> per_round;
        for (const auto& r : rounds)
            for (const auto& t : r.results)
                if (t.name == first.name) per_round.push_back(t);
        out.results.push_back(suite::merge_sessions(std::move(per_round)));
    }
    return out;
}

bool save_live(const CompareArgs& a, const LiveRuns& ran) {
    if (ran.rounds.empty() || ran.rounds.front().empty()) return true;
    bool saved = true;
    std::string base = a.common.label;
    if (base.empty()) {
        base = "compare-" + ran.rounds.front().front().provenance.timestamp_utc;
        base.erase(std::remove(base.begin(), base.end(), ':'), base.end());
    }
    for (size_t k = 0; k < ran.rounds.size(); ++k) {
        std::string note = a.common.note.empty()
                               ? fmt::format("compare, configuration {}: {}", ran.labels[k],
                                             ran.shown[k].empty() ? "(defaults)" : ran.shown[k])
                               : a.common.note;
        saved = save_run(a.db, merge_rounds(ran.rounds[k]), base + "/" + ran.labels[k], note) && saved;
    }
    return saved;
}

} // namespace eb::cli
