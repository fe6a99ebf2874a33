// lab's use cases over fakes (no /dev/kvm): execute over fake machines, a
// live compare's rounds over a fake RunOne.
#include <gtest/gtest.h>

#include <atomic>
#include <fmt/format.h>
#include <functional>

#include "lab/compare_live.h"
#include "lab/run.h"
#include "suite/stop_rule.h"
#include "tests/fake_machine.h"

using namespace eb;

namespace {

suite::HostContext fake_host() {
    suite::HostContext h;
    h.tsc_khz = 1'000'000;  // 1000 MHz: the fake's cycles are ns
    return h;
}

lab::RunPlan fake_plan(const std::vector<suite::TestSpec>& specs) {
    lab::RunPlan p;
    p.settings.time_goal_s = 0.002;
    p.settings.repeats = 4;
    p.settings.trace_verify = false;  // no tracefs in a unit test
    for (const auto& t : specs) p.tests.push_back(&t);
    return p;
}

std::vector<suite::TestSpec> fake_specs(std::initializer_list<const char*> names) {
    std::vector<suite::TestSpec> out;
    for (const char* n : names)
        out.push_back(suite::TestSpec{.name = n, .summary = "", .body = n, .expect = suite::user_io_exits(1)});
    return out;
}

// A round's run of configuration `label`: one test whose repeats are `cost`
// and `cost` + 1 (so the pair has a spread).
suite::RunReport live_round(const std::string& label, double cost) {
    suite::RunReport r;
    r.provenance.argv = {label};
    r.settings.sessions = 1;
    r.results.push_back({.name = "cpuid", .status = suite::Status::Ok, .sessions = {{{cost, cost + 1}, 1024}}});
    return r;
}

// Runs configuration A at about 100 cycles and B at about 110, noting the order.
struct FakeLive {
    std::vector<std::string> order;
    std::atomic<bool>* interrupt_on_call = nullptr;
    size_t interrupt_at = 0;  // the call (from 1) that raises the interrupt; 0: none

    suite::RunReport operator()(const lab::RunPlan& plan, suite::MeasureHooks*) {
        const std::string& label = plan.argv.at(0);
        order.push_back(label);
        if (interrupt_at && order.size() == interrupt_at) *interrupt_on_call = true;
        double jitter = double(order.size() % 3);
        return live_round(label, (label == "A" ? 100 : 110) + jitter);
    }
};

std::vector<lab::LiveConfig> live_configs() {
    std::vector<lab::LiveConfig> c(2);
    c[0].label = "A";
    c[1].label = "B";
    c[0].plan.argv = {"A"};
    c[1].plan.argv = {"B"};
    return c;
}

} // namespace

TEST(LabExecute, ReportsWhatTheFakeMachinesMeasured) {
    auto specs = fake_specs({"one", "two"});
    test::FakeMachines m;
    m.guests["one"] = {.cycles_per_iter = 300};
    m.guests["two"] = {.cycles_per_iter = 700};
    std::atomic<bool> stop{false};
    std::vector<std::string> started;
    lab::RunObserver obs;
    obs.starting = [&](const std::string& t) { started.push_back(t); };
    auto rep = lab::execute(lab::RunTarget{fake_host(), m}, fake_plan(specs), stop, obs);
    ASSERT_EQ(rep.results.size(), 2u);
    EXPECT_FALSE(rep.interrupted);
    EXPECT_EQ(started, (std::vector<std::string>{"one", "two"}));
    EXPECT_DOUBLE_EQ(rep.host.tsc_mhz, 1000) << "the target's TSC rate";
    EXPECT_EQ(rep.results[0].status, suite::Status::Ok) << rep.results[0].detail;
    EXPECT_EQ(rep.results[0].sessions.at(0).samples, std::vector<double>(4, 300.0));
    EXPECT_EQ(rep.results[1].sessions.at(0).samples, std::vector<double>(4, 700.0));
    ASSERT_TRUE(rep.wall_time);
    EXPECT_GT(rep.wall_time->total, 0);
}

// The interrupt raised as the first test finishes: the second never starts,
// the first's result is kept and the report says interrupted.
TEST(LabExecute, AnInterruptKeepsTheFinishedTests) {
    auto specs = fake_specs({"one", "two", "three"});
    test::FakeMachines m;
    std::atomic<bool> stop{false};
    lab::RunObserver obs;
    obs.done = [&](const suite::TestResult&) { stop = true; };
    auto rep = lab::execute(lab::RunTarget{fake_host(), m}, fake_plan(specs), stop, obs);
    EXPECT_TRUE(rep.interrupted);
    ASSERT_EQ(rep.results.size(), 1u);
    EXPECT_EQ(rep.results[0].name, "one");
    EXPECT_EQ(rep.results[0].status, suite::Status::Ok);
    EXPECT_EQ(m.made.size(), 1u) << "no machine made after the interrupt";
}

TEST(LabCompareLive, TwoConfigurationsAlternateABThenBA) {
    FakeLive fake;
    std::atomic<bool> stop{false};
    std::vector<std::string> header;
    lab::LiveRuns ran;
    lab::run_live(std::ref(fake), live_configs(), {.rounds = 4}, 0.05, stop, header, &ran);
    EXPECT_EQ(fake.order, (std::vector<std::string>{"A", "B", "B", "A", "A", "B", "B", "A"}));
    ASSERT_EQ(ran.rounds.size(), 2u);
    EXPECT_EQ(ran.rounds[0].size(), 4u);
    ASSERT_FALSE(header.empty());
    EXPECT_NE(header[0].find("4 rounds interleaved (alternating AB, BA)"), std::string::npos) << header[0];
}

// With a budget, a pilot of kPilotRounds fixes the rounds and is set aside:
// the rounds kept are those after it, as many as the pilot's spread asks.
TEST(LabCompareLive, ABudgetRunsAPilotThatIsNotAnalysed) {
    FakeLive fake;
    std::atomic<bool> stop{false};
    std::vector<std::string> header;
    lab::LiveRuns ran;
    lab::LiveSchedule sched{.rounds = 40, .budget_s = 1e6, .precision = 0.01};
    lab::run_live(std::ref(fake), live_configs(), sched, 0.05, stop, header, &ran);
    ASSERT_EQ(ran.rounds.size(), 2u);
    size_t kept = ran.rounds[0].size();
    EXPECT_GT(kept, suite::kPilotRounds) << "the fake's spread asks for more rounds than the pilot's";
    EXPECT_LT(kept, 40u) << "and fewer than --rounds";
    EXPECT_EQ(fake.order.size(), 2 * (suite::kPilotRounds + kept)) << "the pilot's runs, then the kept rounds'";
    EXPECT_NE(header[0].find(fmt::format("a {}-round pilot (not analysed) fixed {} rounds", suite::kPilotRounds,
                                         kept)),
              std::string::npos)
        << header[0];
}

TEST(LabCompareLive, ABudgetShorterThanARoundEndsTheRoundsAtOnce) {
    FakeLive fake;
    std::atomic<bool> stop{false};
    std::vector<std::string> header;
    lab::LiveRuns ran;
    lab::run_live(std::ref(fake), live_configs(), {.rounds = 40, .budget_s = 1e-9}, 0.05, stop, header, &ran);
    EXPECT_EQ(ran.rounds[0].size(), 1u) << "the first round is over budget already";
    EXPECT_EQ(fake.order.size(), 2u);
}

// The interrupt lands in round 2's first run: that round is no pair and is dropped.
TEST(LabCompareLive, ARoundCutShortByAnInterruptIsDropped) {
    FakeLive fake;
    std::atomic<bool> stop{false};
    fake.interrupt_on_call = &stop;
    fake.interrupt_at = 3;
    std::vector<std::string> header;
    lab::LiveRuns ran;
    lab::run_live(std::ref(fake), live_configs(), {.rounds = 8}, 0.05, stop, header, &ran);
    EXPECT_EQ(fake.order.size(), 3u) << "nothing runs after the interrupt";
    EXPECT_EQ(ran.rounds[0].size(), 1u);
    EXPECT_EQ(ran.rounds[1].size(), 1u);
    EXPECT_NE(header[0].find("1 round interleaved"), std::string::npos) << header[0];
}
