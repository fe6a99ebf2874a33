// The session's batch sizing and exit counting against a fake Executor: no
// /dev/kvm, so every rule runs on any host.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <thread>

#include "suite/session.h"

using namespace eb;
using eb::suite::Session;

namespace {

// A machine whose guest is the test itself: it writes the mailbox and moves
// the host counters, then calls the ucall the real guest would.
class FakeExecutor : public suite::Executor {
public:
    explicit FakeExecutor(uint32_t vcpus = 1) : mailboxes_(vcpus) {}
    uint32_t nr_vcpus() const override { return static_cast<uint32_t>(mailboxes_.size()); }
    eb::abi::Mailbox& mailbox(uint32_t vcpu) override { return mailboxes_.at(vcpu); }
    std::span<const uint64_t> per_exit_samples(uint64_t n) override {
        samples_.assign(n, 0);
        for (uint64_t i = 0; i < n; ++i) samples_[i] = 100 + i;
        return samples_;
    }
    const std::optional<std::vector<std::string>>& kvm_stat_names() const override { return names_; }
    suite::HostCounters counters() const override { return now; }

    suite::HostCounters now{{0}, 0, 0, 0, 0, {}};  // "exits", the userspace counts and their times

private:
    std::deque<eb::abi::Mailbox> mailboxes_;
    std::vector<uint64_t> samples_;
    std::optional<std::vector<std::string>> names_ = std::vector<std::string>{"exits"};
};

vmm::Action ucall(Session& s, uint32_t type, uint32_t vcpu = 0) {
    uint8_t d[4];
    std::memcpy(d, &type, 4);
    return s.on_ucall({vcpu, eb::abi::kUcallPort, true, {d, 4}});
}

// One batch of `cycles_per_iter`, with `exits_per_iter` kernel exits, as the
// guest would run it at the size the host asked for.
vmm::Action batch(Session& s, FakeExecutor& x, uint64_t cycles_per_iter, uint64_t exits_per_iter = 1) {
    auto& mb = x.mailbox(0);
    mb.cycles = mb.iterations * cycles_per_iter;
    x.now.kvm[0] += mb.iterations * exits_per_iter + 1;  // +1: the ucall that ends the batch
    return ucall(s, eb::abi::kBatchDone);
}

constexpr double kTscMhz = 1000;  // 1e6 ticks per ms

suite::RunSettings adaptive(double goal_ms, uint32_t repeats) {
    suite::RunSettings s;
    s.time_goal_s = goal_ms / 1e3;
    s.repeats = repeats;
    return s;
}

} // namespace

// Doubling from 64 until a batch takes 1/16 of the goal, then one step
// scaled to just over the goal (5%), not on to the next power of two.
TEST(Session, DoublesTheBatchFrom64ThenScalesItToTheTimeGoal) {
    FakeExecutor x;
    Session s(x, adaptive(1, 3), kTscMhz);
    ASSERT_EQ(ucall(s, eb::abi::kReady), vmm::Action::Resume);
    std::vector<uint64_t> sizes{x.mailbox(0).iterations};
    // 100 cycles per iteration: 1e6 ticks need 10000 iterations; 1024 take
    // 1/16 of that or more, so 1024 * 1.05e6 / 102400 (+1) follows.
    for (int i = 0; i < 5; ++i) {
        ASSERT_EQ(batch(s, x, 100), vmm::Action::Resume);
        sizes.push_back(uint64_t{x.mailbox(0).iterations});
    }
    EXPECT_EQ(sizes, (std::vector<uint64_t>{64, 128, 256, 512, 1024, 10501}));
    ASSERT_EQ(batch(s, x, 100), vmm::Action::Resume);  // reaches the goal: discarded as warm-up
    EXPECT_TRUE(s.samples().empty());
    EXPECT_EQ(batch(s, x, 100), vmm::Action::Resume);
    EXPECT_EQ(batch(s, x, 100), vmm::Action::Resume);
    EXPECT_EQ(batch(s, x, 100), vmm::Action::Stop);
    EXPECT_EQ(s.end(), Session::End::Done);
    EXPECT_EQ(s.samples(), (std::vector<double>{100, 100, 100}));
    EXPECT_EQ(s.iterations(), 10501u);
}

// A body whose batches come out short of the prediction (slower now than
// measured) steps again by the ratio, and never more than 16-fold a step.
TEST(Session, AScaledBatchShortOfTheGoalStepsAgain) {
    FakeExecutor x;
    Session s(x, adaptive(1, 1), kTscMhz);
    s.reuse_batch(1000);
    ucall(s, eb::abi::kReady);
    batch(s, x, 1);  // 1000 ticks: below 1/16 of the goal, doubled
    EXPECT_EQ(x.mailbox(0).iterations, 2000u);
    batch(s, x, 100);  // 2e5 ticks: scaled to 2000 * 1.05e6 / 2e5 (+1)
    EXPECT_EQ(x.mailbox(0).iterations, 10501u);
    batch(s, x, 10);  // faster now: 1.05e5 ticks, scaled again by the ratio
    EXPECT_EQ(x.mailbox(0).iterations, 105001u);

    FakeExecutor y;
    Session t(y, adaptive(1, 1), kTscMhz);
    t.reuse_batch(62500);
    ucall(t, eb::abi::kReady);
    batch(t, y, 1);  // exactly 1/16 of the goal: 16.8-fold predicted, 16-fold taken
    EXPECT_EQ(y.mailbox(0).iterations, 1000000u);
}

// --warmup N: N more batches of the final size are discarded after the one
// that reached the time goal; the measured ones follow.
TEST(Session, WarmupDiscardsMoreBatchesOfTheFinalSize) {
    FakeExecutor x;
    auto set = adaptive(1, 2);
    set.iterations = 500;
    set.warmup = 2;
    Session s(x, set, kTscMhz);
    ucall(s, eb::abi::kReady);
    for (uint64_t c : {9, 9, 9}) {  // the usual discarded batch, then the two --warmup ones
        ASSERT_EQ(batch(s, x, c), vmm::Action::Resume);
        EXPECT_TRUE(s.samples().empty());
    }
    batch(s, x, 5);
    EXPECT_EQ(batch(s, x, 7), vmm::Action::Stop);
    EXPECT_EQ(s.samples(), (std::vector<double>{5, 7}));
}

TEST(Session, FixedIterationsSkipTheSizingButNotTheWarmUp) {
    FakeExecutor x;
    auto set = adaptive(1, 2);
    set.iterations = 500;
    Session s(x, set, kTscMhz);
    ucall(s, eb::abi::kReady);
    EXPECT_EQ(x.mailbox(0).iterations, 500u);
    batch(s, x, 5);
    EXPECT_TRUE(s.samples().empty());
    batch(s, x, 5);
    EXPECT_EQ(batch(s, x, 7), vmm::Action::Stop);
    EXPECT_EQ(s.samples(), (std::vector<double>{5, 7}));
    EXPECT_EQ(s.observed().batches, 2u);
    EXPECT_EQ(s.observed().iterations, 1000u);
}

TEST(Session, TheTestsCapAndPerExitBoundTheBatch) {
    FakeExecutor x;
    Session capped(x, adaptive(1000, 1), kTscMhz, 1, nullptr, 300);
    ucall(capped, eb::abi::kReady);
    EXPECT_EQ(x.mailbox(0).iterations, 64u);
    batch(capped, x, 1);
    batch(capped, x, 1);
    EXPECT_EQ(x.mailbox(0).iterations, 256u);
    batch(capped, x, 1);
    EXPECT_EQ(x.mailbox(0).iterations, 300u);  // the cap, not 512
    batch(capped, x, 1);                        // the cap ends the warm-up
    EXPECT_EQ(batch(capped, x, 1), vmm::Action::Stop);

    auto per_exit = adaptive(1, 1);
    per_exit.iterations = eb::abi::kSampleMax * 4;
    per_exit.per_exit = true;
    FakeExecutor y;
    Session s(y, per_exit, kTscMhz);
    ucall(s, eb::abi::kReady);
    EXPECT_EQ(y.mailbox(0).iterations, eb::abi::kSampleMax);  // the guest's sample buffer
}

TEST(Session, CountsOnlyTheMeasuredBatchesExits) {
    FakeExecutor x(2);
    auto set = adaptive(1, 2);
    set.iterations = 10;
    Session s(x, set, kTscMhz, 2);
    ucall(s, eb::abi::kReady);
    batch(s, x, 100, 5);  // warm-up: not counted
    x.now.user_io += 10;
    x.mailbox(1).irqs = x.mailbox(1).irqs + 20;
    batch(s, x, 100, 3);
    batch(s, x, 100, 3);
    const auto& o = s.observed();
    EXPECT_EQ(o.iterations, 20u);
    EXPECT_EQ(o.all_iterations, 40u);  // both vCPUs run the body
    EXPECT_EQ(o.user_io, 10u);
    EXPECT_EQ(o.irqs, 20u);
    ASSERT_TRUE(o.kvm);
    EXPECT_EQ(o.kvm->at("exits"), 2u * (10 * 3 + 1));
    EXPECT_EQ(s.all_iterations(), 3u * 10 * 2);
}

namespace {
// A host profiler's stand-in: perturbs (samples) every other measured batch,
// as lab::HostProfiler does, and records what it was told.
struct AlternateHooks : suite::MeasureHooks {
    std::vector<uint32_t> started;
    std::vector<uint64_t> ended_cycles;
    void test_starting(const std::string&) override {}
    bool batch_starting(uint32_t index, const std::vector<pid_t>&) override {
        started.push_back(index);
        return index % 2 == 0;
    }
    void batch_ended(uint64_t cycles, uint64_t) override { ended_cycles.push_back(cycles); }
    void test_ended(const std::string&) override {}
};
} // namespace

// --host-profile: the sampled batches (here 1000 cycles an iteration, as if
// sampling slowed them) feed only the profile; the results, the exit counts
// and the windows come from the unsampled ones, and there are still --repeats of them.
TEST(Session, BatchesTheHooksPerturbAreLeftOutOfTheResults) {
    FakeExecutor x;
    auto set = adaptive(1, 3);
    set.iterations = 10;
    set.per_exit = true;
    Session s(x, set, kTscMhz);
    AlternateHooks hooks;
    s.set_hooks(&hooks);
    ucall(s, eb::abi::kReady);
    batch(s, x, 50);  // warm-up: the hooks hear only that the first measured batch starts
    EXPECT_EQ(hooks.started, (std::vector<uint32_t>{0}));
    EXPECT_TRUE(hooks.ended_cycles.empty());
    for (int i = 0; i < 5; ++i) {  // three sampled, two not: not yet the third result
        bool sampled = i % 2 == 0;
        ASSERT_EQ(batch(s, x, sampled ? 1000 : 100 + i, sampled ? 7 : 2), vmm::Action::Resume) << i;
    }
    EXPECT_EQ(batch(s, x, 105, 2), vmm::Action::Stop);
    EXPECT_EQ(s.samples(), (std::vector<double>{101, 103, 105}));
    EXPECT_EQ(s.set_aside(), 3u);
    EXPECT_EQ(hooks.started, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(hooks.ended_cycles, (std::vector<uint64_t>{10000, 1010, 10000, 1030, 10000, 1050}));
    EXPECT_EQ(s.observed().batches, 3u);
    EXPECT_EQ(s.observed().gaps, 3u);  // each result's batch follows a set-aside one
    EXPECT_EQ(s.observed().iterations, 30u);
    ASSERT_TRUE(s.observed().kvm);
    EXPECT_EQ(s.observed().kvm->at("exits"), 3u * (10 * 2 + 1));
    EXPECT_EQ(s.batch_windows().size(), 3u);
    EXPECT_EQ(s.per_exit().size(), 30u);
}

// An interrupt may straddle each end of a batch; with set-aside batches in
// between, the ends no longer net out, and the check allows for each gap.
TEST(Session, TheInterruptCheckAllowsForTheGapsOfSetAsideBatches) {
    suite::Expect e;
    e.irqs_per_iter = 1;
    suite::Observed o;
    o.iterations = o.all_iterations = 2000;
    o.batches = 2;
    o.irqs = 2004;
    EXPECT_TRUE(suite::check_irqs(e, o));  // contiguous batches: 4 too many is a loss
    o.gaps = 2;
    EXPECT_FALSE(suite::check_irqs(e, o));
    o.irqs = 2005;
    EXPECT_TRUE(suite::check_irqs(e, o));
}

TEST(Session, PerExitKeepsEverySample) {
    FakeExecutor x;
    auto set = adaptive(1, 2);
    set.iterations = 3;
    set.per_exit = true;
    Session s(x, set, kTscMhz);
    ucall(s, eb::abi::kReady);
    batch(s, x, 1);
    batch(s, x, 1);
    batch(s, x, 1);
    EXPECT_EQ(s.per_exit(), (std::vector<double>{100, 101, 102, 100, 101, 102}));
}

TEST(Session, GuestFailuresEndTheSession) {
    FakeExecutor x;
    Session s(x, adaptive(1, 1), kTscMhz);
    ucall(s, eb::abi::kReady);
    std::strcpy(x.mailbox(0).msg, "guest CPUID lacks XSAVE");
    EXPECT_EQ(ucall(s, eb::abi::kSkip), vmm::Action::Stop);
    EXPECT_EQ(s.end(), Session::End::Skipped);
    EXPECT_EQ(s.failure(), "guest CPUID lacks XSAVE");

    FakeExecutor y;
    Session t(y, adaptive(1, 1), kTscMhz);
    y.mailbox(0).exc.vector = 13;
    EXPECT_EQ(ucall(t, eb::abi::kException), vmm::Action::Stop);
    EXPECT_EQ(t.end(), Session::End::Exception);
    EXPECT_NE(t.failure().find("#GP (vector 13)"), std::string::npos) << t.failure();

    FakeExecutor z;
    Session u(z, adaptive(1, 1), kTscMhz);
    EXPECT_EQ(ucall(u, 0x77), vmm::Action::Stop);
    EXPECT_EQ(u.end(), Session::End::BadUcall);
}

// Several vCPU threads may end the session at once: the first ending is kept,
// with the vCPU that sent it, and nothing races (the TSan job runs this too).
TEST(Session, TheFirstVcpuToEndTheSessionIsKept) {
    FakeExecutor x(2);
    Session s(x, adaptive(1, 3), kTscMhz);
    ASSERT_EQ(ucall(s, eb::abi::kReady), vmm::Action::Resume);
    std::strcpy(x.mailbox(1).msg, "AP check failed");
    EXPECT_EQ(ucall(s, eb::abi::kFail, 1), vmm::Action::Stop);
    x.mailbox(0).exc.vector = 13;
    EXPECT_EQ(ucall(s, eb::abi::kException, 0), vmm::Action::Stop);
    EXPECT_EQ(s.end(), Session::End::Failed);
    EXPECT_EQ(s.failure(), "AP check failed");
    EXPECT_EQ(s.failed_vcpu(), 1u);

    Session racing(x, adaptive(1, 3), kTscMhz);
    std::vector<std::thread> threads;
    for (uint32_t v = 0; v < 2; ++v)
        threads.emplace_back([&, v] {
            for (int i = 0; i < 1000; ++i) ucall(racing, eb::abi::kFail, v);
        });
    for (auto& t : threads) t.join();
    EXPECT_EQ(racing.end(), Session::End::Failed);
    EXPECT_LT(racing.failed_vcpu(), 2u);
}

// Progress is a finished batch: a guest that keeps re-sending its start-up
// ucall is not making any, so the watchdog can call it hung.
TEST(Session, OnlyBatchesCountAsProgress) {
    FakeExecutor x;
    Session s(x, adaptive(1, 3), kTscMhz);
    ASSERT_EQ(ucall(s, eb::abi::kReady), vmm::Action::Resume);
    int64_t started = s.last_progress_ns();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    for (int i = 0; i < 10; ++i) ucall(s, eb::abi::kReady);
    EXPECT_EQ(s.last_progress_ns(), started);
    batch(s, x, 100);
    EXPECT_GT(s.last_progress_ns(), started);
}

// A guest check's failure says where, what and the values; a plain fail()
// keeps its message alone, and a guest that left no NUL cannot overrun.
TEST(GuestCheck, FailureDetailNamesFileLineExpressionAndValues) {
    eb::abi::Mailbox mb{};
    std::strcpy(mb.msg, "user port returned a wrong value");
    EXPECT_EQ(eb::suite::failed_check_text(mb), "user port returned a wrong value");
    mb.check.line = 26;
    mb.check.has_values = 1;
    mb.check.lhs = 0;
    mb.check.rhs = 0x5ca1ab1e;
    std::strcpy(mb.check.file, "guest/bodies/kut.cpp");
    std::strcpy(mb.check.expr, "guest::inl(abi::kUserPort) == abi::kUserPortValue");
    EXPECT_EQ(eb::suite::failed_check_text(mb),
              "guest check failed at guest/bodies/kut.cpp:26: guest::inl(abi::kUserPort) == abi::kUserPortValue "
              "(0x0 vs 0x5ca1ab1e): user port returned a wrong value");
    mb.check.has_values = 0;
    std::memset(mb.check.expr, 'x', sizeof mb.check.expr);
    EXPECT_EQ(eb::suite::failed_check_text(mb),
              "guest check failed at guest/bodies/kut.cpp:26: " + std::string(sizeof mb.check.expr, 'x') +
                  ": user port returned a wrong value");
}

// A later session starts at the size an earlier one calibrated: its first
// batch is still discarded, and when it takes the time goal there is no
// doubling from 64.
TEST(Session, AReusedBatchSizeMeetingTheGoalSkipsTheDoubling) {
    FakeExecutor x;
    Session s(x, adaptive(1, 2), kTscMhz);
    s.reuse_batch(16384);
    ucall(s, eb::abi::kReady);
    EXPECT_EQ(x.mailbox(0).iterations, 16384u);
    ASSERT_EQ(batch(s, x, 100), vmm::Action::Resume);  // 1.6e6 ticks: the goal; discarded
    EXPECT_TRUE(s.samples().empty());
    batch(s, x, 100);
    EXPECT_EQ(batch(s, x, 100), vmm::Action::Stop);
    EXPECT_EQ(s.samples(), (std::vector<double>{100, 100}));
    EXPECT_EQ(s.iterations(), 16384u);
    EXPECT_EQ(s.all_iterations(), 3 * 16384u) << "one discarded batch, then the measured ones";
    EXPECT_TRUE(s.batch_reused());
}

// A first batch of 64 that takes 10 goals is cut to the goal once (and then
// grows again if short); it is discarded like every warm-up batch.
TEST(Session, AFirstBatchFarOverTheGoalIsCutToItOnce) {
    FakeExecutor x;
    Session s(x, adaptive(1, 1), kTscMhz);
    ucall(s, eb::abi::kReady);
    EXPECT_EQ(x.mailbox(0).iterations, 64u);
    batch(s, x, 156250);  // 1e7 ticks: 10 goals
    EXPECT_EQ(x.mailbox(0).iterations, 7u);  // 64 * 1.05 / 10, +1
    EXPECT_TRUE(s.samples().empty());
    batch(s, x, 300000);  // 2.1e6 ticks, over 2 goals again: no second cut, measured from here
    EXPECT_EQ(x.mailbox(0).iterations, 7u);
    EXPECT_EQ(batch(s, x, 300000), vmm::Action::Stop);
    EXPECT_EQ(s.iterations(), 7u);
}

// Faster then, slower now: the reused size falls short of the goal and the
// sizing resumes from it, not from 64.
TEST(Session, AReusedSizeShortOfTheGoalGrowsFromThere) {
    FakeExecutor x;
    Session s(x, adaptive(1, 1), kTscMhz);
    s.reuse_batch(4096);
    ucall(s, eb::abi::kReady);
    EXPECT_EQ(x.mailbox(0).iterations, 4096u);
    ASSERT_EQ(batch(s, x, 100), vmm::Action::Resume);  // 4.1e5 ticks, short of 1e6
    EXPECT_EQ(x.mailbox(0).iterations, 10501u);
    batch(s, x, 100);
    EXPECT_EQ(batch(s, x, 100), vmm::Action::Stop);
    EXPECT_FALSE(s.batch_reused());
}

TEST(Session, FixedIterationsIgnoreAReusedSize) {
    FakeExecutor x;
    auto set = adaptive(1, 1);
    set.iterations = 500;
    Session s(x, set, kTscMhz);
    s.reuse_batch(16384);
    ucall(s, eb::abi::kReady);
    EXPECT_EQ(x.mailbox(0).iterations, 500u);
    EXPECT_FALSE(s.batch_reused());
}

// The account's batch times come from the host's clock at each batch's
// edges: the discarded and the measured ones apart, never more than the
// time since the guest was ready. The guest here spends at least 1 ms in each
// batch (a lower bound only: nothing is timed against an upper one).
TEST(Session, TheWallAccountSeparatesDiscardedFromMeasuredBatches) {
    FakeExecutor x;
    auto set = adaptive(1, 2);
    set.iterations = 100;
    Session s(x, set, kTscMhz);
    ucall(s, eb::abi::kReady);
    ASSERT_GT(s.ready_ns(), 0);
    auto slow_batch = [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return batch(s, x, 5);
    };
    slow_batch();  // discarded
    EXPECT_GE(s.warmup_ns(), 1'000'000);
    EXPECT_EQ(s.measured_ns(), 0);
    slow_batch();
    EXPECT_EQ(slow_batch(), vmm::Action::Stop);
    int64_t since_ready = eb::suite::monotonic_ns() - s.ready_ns();
    EXPECT_GE(s.measured_ns(), 2'000'000);
    EXPECT_LE(s.warmup_ns() + s.measured_ns(), since_ready) << "batch windows overlap";
}
