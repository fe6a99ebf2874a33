// The Runner against fake machines (tests/fake_machine.h): batch sizing to
// the time goal, the watchdog, the interrupt, the guest's failures and the
// sessions' reuse of a calibrated size, all without /dev/kvm.
#include <gtest/gtest.h>

#include <atomic>

#include "suite/runner.h"
#include "tests/fake_machine.h"

using namespace eb;

namespace {

constexpr double kRunnerTscMhz = 1000;  // 1e6 ticks per ms

suite::TestSpec runner_spec(const char* name, const char* body) {
    return suite::TestSpec{.name = name, .summary = "", .body = body, .expect = suite::user_io_exits(1)};
}

suite::RunSettings runner_settings() {
    suite::RunSettings s;
    s.time_goal_s = 0.002;  // 2e6 ticks
    s.repeats = 5;
    s.watchdog_s = 0.1;
    return s;
}

suite::TestResult run_one(const test::FakeMachines& m, const suite::TestSpec& t, const suite::RunSettings& s,
                          const std::atomic<bool>& stop = std::atomic<bool>{false}) {
    suite::Runner runner(m, suite::HostContext{}, s, kRunnerTscMhz);
    return runner.run(t, stop);
}

} // namespace

// 500 cycles an iteration and a 2e6-tick goal: 4000 iterations at least, and
// under 2 goals' worth (the sizing steps to just over the goal).
TEST(Runner, SizesTheBatchToTheTimeGoalFromTheCyclesPerIteration) {
    test::FakeMachines m;
    m.guests["body"] = {.cycles_per_iter = 500};
    auto r = run_one(m, runner_spec("t", "body"), runner_settings());
    EXPECT_EQ(r.status, suite::Status::Ok) << r.detail;
    EXPECT_GE(r.iterations, 4000u);
    EXPECT_LT(r.iterations, 8000u);
    ASSERT_EQ(r.sessions.size(), 1u);
    EXPECT_EQ(r.sessions[0].samples, std::vector<double>(5, 500.0)) << "each measured batch's cycles per iteration";
    EXPECT_EQ(r.exits.measured, std::optional<double>(1.0)) << "the fake's one PIO exit an iteration, counted";
    ASSERT_EQ(m.made.size(), 1u) << "one fresh machine for the test";
}

TEST(Runner, AFixedBatchSizeIsWhatTheGuestIsAsked) {
    test::FakeMachines m;
    auto s = runner_settings();
    s.iterations = 777;
    auto r = run_one(m, runner_spec("t", "body"), s);
    EXPECT_EQ(r.iterations, 777u);
    EXPECT_EQ(r.sessions.at(0).samples.size(), 5u);
}

TEST(Runner, AGuestWithNoProgressIsStoppedByTheWatchdog) {
    test::FakeMachines m;
    m.guests["stuck"] = {.kind = test::FakeGuest::Kind::HangsAfterReady};
    auto set = runner_settings();
    auto r = run_one(m, runner_spec("t", "stuck"), set);
    EXPECT_EQ(r.status, suite::Status::Hung);
    EXPECT_NE(r.detail.find("stopped by the watchdog"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("fake vCPU 0 rip=0xf00"), std::string::npos) << "the hang names the registers: " << r.detail;
    // Not fired early: the runner's own account of the wait since the last
    // progress holds its whole budget (a watchdog that never fires is
    // ctest's timeout for this binary, not a bound here).
    EXPECT_GE(r.wall.watchdog, set.watchdog_s) << "the wall account names the watchdog's wait";
}

TEST(Runner, AnInterruptStopsTheRunningTest) {
    test::FakeMachines m;
    m.guests["slow"] = {.per_batch = std::chrono::milliseconds(5)};
    std::atomic<bool> stop{true};
    auto r = run_one(m, runner_spec("t", "slow"), runner_settings(), stop);
    EXPECT_EQ(r.status, suite::Status::Interrupted);
    EXPECT_EQ(r.detail, "interrupted by the user");
}

TEST(Runner, AGuestFailureAndAMissingBodyAreResultsNotExceptions) {
    test::FakeMachines m;
    m.guests["bad"] = {.kind = test::FakeGuest::Kind::Fails};
    auto failed = run_one(m, runner_spec("t", "bad"), runner_settings());
    EXPECT_EQ(failed.status, suite::Status::Failed);
    EXPECT_NE(failed.detail.find("the fake guest failed"), std::string::npos) << failed.detail;

    auto missing = run_one(m, runner_spec("t", "missing"), runner_settings());
    EXPECT_EQ(missing.status, suite::Status::Error);
    EXPECT_NE(missing.detail.find("no body for t"), std::string::npos) << missing.detail;
    EXPECT_EQ(m.made.size(), 1u) << "no machine is made for a body the image lacks";
}

TEST(Runner, TheMachineGetsTheTestsVcpusAndPins) {
    test::FakeMachines m;
    auto t = runner_spec("t", "body");
    t.min_vcpus = 2;
    auto s = runner_settings();
    s.pin = {1, 0};
    run_one(m, t, s);
    ASSERT_EQ(m.made.size(), 1u);
    EXPECT_EQ(m.made[0].vcpus, 2u) << "the test's minimum over --smp 1";
    EXPECT_EQ(m.made[0].pin, (std::vector<int>{1, 0}));
}

// Three sessions, a fresh machine each; the later two start from the size
// the first calibrated, and the hang of another test is not rerun.
TEST(Runner, LaterSessionsReuseTheCalibratedSizeInFreshMachines) {
    test::FakeMachines m;
    m.guests["stuck"] = {.kind = test::FakeGuest::Kind::HangsAfterReady};
    auto s = runner_settings();
    s.sessions = 3;
    auto ok = runner_spec("ok", "body"), hung = runner_spec("hung", "stuck");
    suite::Runner runner(m, suite::HostContext{}, s, kRunnerTscMhz);
    std::atomic<bool> stop{false};
    auto rs = runner.run_all({&ok, &hung}, stop, {});
    ASSERT_EQ(rs.size(), 2u);
    EXPECT_EQ(m.made.size(), 4u) << "ok three times, the hung test once";
    ASSERT_EQ(rs[0].sessions.size(), 3u);
    EXPECT_FALSE(rs[0].sessions[0].batch_reused);
    EXPECT_TRUE(rs[0].sessions[1].batch_reused);
    EXPECT_EQ(rs[0].sessions[2].iterations, rs[0].sessions[0].iterations);
    EXPECT_EQ(rs[1].status, suite::Status::Hung);
    EXPECT_EQ(rs[1].sessions_not_rerun, 2u);
}
