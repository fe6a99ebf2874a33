#include "lab/compare_live.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <numeric>
#include <stdexcept>

#include "suite/stop_rule.h"

namespace eb::lab {

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

// Two stages: the pilot fixes the number of rounds and is then set aside, so
// the rounds analysed are independent of the choice. Returns what it fixed.
std::string after_pilot(LiveSchedule& sched, const std::vector<std::string>& labels,
                        std::vector<std::vector<suite::RunReport>>& rounds, double alpha) {
    sched.rounds = suite::planned_rounds(suite::compare_rounds(labels, rounds, alpha), sched.precision, sched.rounds);
    for (auto& r : rounds) r.clear();
    return fmt::format("two-stage: a {}-round pilot (not analysed) fixed {} rounds for +-{:g}%", suite::kPilotRounds,
                       sched.rounds, sched.precision * 100);
}

} // namespace

suite::ComparisonReport run_live(const kvm::System& sys, const std::vector<LiveConfig>& configs,
                                 LiveSchedule sched, double alpha, const std::atomic<bool>& interrupt,
                                 std::vector<std::string>& header, LiveRuns* ran, const RoundObserver& on_round,
                                 RoundHooks* hooks) {
    auto on_kvm = [&](const RunPlan& plan, suite::MeasureHooks* h) { return execute(sys, plan, interrupt, {}, h); };
    return run_live(on_kvm, configs, sched, alpha, interrupt, header, ran, on_round, hooks);
}

suite::ComparisonReport run_live(const RunOne& run_one, const std::vector<LiveConfig>& configs,
                                 LiveSchedule sched, double alpha, const std::atomic<bool>& interrupt,
                                 std::vector<std::string>& header, LiveRuns* ran, const RoundObserver& on_round,
                                 RoundHooks* hooks) {
    std::vector<std::string> labels;
    for (const auto& c : configs) {
        labels.push_back(c.label);
        header.push_back(fmt::format("  {}: {}", c.label, c.shown.empty() ? "(defaults)" : c.shown));
    }
    std::vector<std::vector<suite::RunReport>> rounds(configs.size());
    std::mt19937_64 rng(sched.seed);
    auto t0 = std::chrono::steady_clock::now();
    uint64_t done = 0;
    std::string plan;  // with a budget: what the pilot fixed
    while (done < sched.rounds && !interrupt.load()) {
        for (size_t k : round_order(configs.size(), done, rng)) {
            if (interrupt.load()) break;
            rounds[k].push_back(run_one(configs[k].plan, hooks ? hooks->starting(k) : nullptr));
            if (hooks) hooks->finished(k);
        }
        if (interrupt.load()) break;  // a round cut short is no pair
        ++done;
        double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        // The budget ends the rounds first when it is shorter than their pace.
        double left = double(sched.rounds - done) * elapsed / double(done);
        if (sched.budget_s > 0) left = std::min(left, std::max(0.0, sched.budget_s - elapsed));
        if (on_round) on_round(done, sched.rounds, elapsed, left);
        if (sched.budget_s > 0 && done == suite::kPilotRounds && plan.empty()) {
            plan = after_pilot(sched, labels, rounds, alpha);
            if (hooks) hooks->keep_rounds(0);  // the pilot's profiles go with its rounds
            done = 0;
            continue;
        }
        if (sched.budget_s > 0 && elapsed >= sched.budget_s) {
            if (!plan.empty() && done < sched.rounds) plan += fmt::format("; the budget ended it after {}", done);
            break;
        }
    }
    for (auto& r : rounds) r.resize(std::min<size_t>(r.size(), done));
    if (hooks) hooks->keep_rounds(done);
    std::string order = configs.size() == 2 ? "alternating AB, BA" : fmt::format("shuffled per round, --seed {}", sched.seed);
    header.insert(header.begin(), fmt::format("{} configurations, {} round{} interleaved ({}), each round one fresh "
                                              "VM per test and configuration{}{}",
                                              configs.size(), done, done == 1 ? "" : "s", order, plan.empty() ? "" : "; ",
                                              plan));
    auto cmp = suite::compare_rounds(labels, rounds, alpha);
    if (ran) {
        ran->labels = labels;
        for (const auto& c : configs) ran->shown.push_back(c.shown);
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

std::vector<LabelledRun> runs_to_save(const LiveRuns& ran, const std::string& label, const std::string& note) {
    std::vector<LabelledRun> out;
    if (ran.rounds.empty() || ran.rounds.front().empty()) return out;
    std::string base = label;
    if (base.empty()) {
        base = "compare-" + ran.rounds.front().front().provenance.timestamp_utc;
        base.erase(std::remove(base.begin(), base.end(), ':'), base.end());
    }
    for (size_t k = 0; k < ran.rounds.size(); ++k)
        out.push_back({merge_rounds(ran.rounds[k]), base + "/" + ran.labels[k],
                       note.empty() ? fmt::format("compare, configuration {}: {}", ran.labels[k],
                                                  ran.shown[k].empty() ? "(defaults)" : ran.shown[k])
                                    : note});
    return out;
}

} // namespace eb::lab
