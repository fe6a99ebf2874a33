// run --profile leaves the harness's ucall exits out of a test's exits.
#include <gtest/gtest.h>

#include "profile/analyze.h"
#include "profile/harness.h"

using namespace eb::profile;

namespace {
constexpr uint64_t kPort = 0x5e0;
constexpr uint64_t kIoInstruction = 30;  // VMX exit reason

Event harness_event(uint64_t ts, uint32_t tid, EventType t, uint64_t a = 0, uint64_t b = 0) {
    return Event{ts, tid, 0, 0, t, 0, 0, a, b};
}

// One PIO exit on thread `tid`: kvm_exit, kvm_pio, [kvm_userspace_exit], kvm_entry.
void pio_exit(std::vector<Event>& v, uint64_t ts, uint32_t tid, uint64_t port, uint64_t len, bool user) {
    v.push_back(harness_event(ts, tid, EventType::Exit, kIoInstruction));
    v.push_back(harness_event(ts + 1, tid, EventType::Pio, port, 1));
    if (user) v.push_back(harness_event(ts + 2, tid, EventType::UserspaceExit, 2));
    v.push_back(harness_event(ts + len, tid, EventType::Entry));
}
} // namespace

TEST(ProfileHarness, UcallExitsAreLeftOutAndTimedApart) {
    std::vector<Event> v;
    pio_exit(v, 0, 7, 0x4d0, 100, false);           // the test's exit
    pio_exit(v, 1000, 7, kPort, 275000, true);      // a batch boundary
    // Another thread's exit interleaved with the ucall's: kept.
    v.insert(v.begin() + 6, harness_event(1500, 8, EventType::Exit, kIoInstruction));
    v.insert(v.begin() + 7, harness_event(1600, 8, EventType::Entry));
    pio_exit(v, 300000, 7, 0x4d0, 120, false);
    std::stable_sort(v.begin(), v.end(), [](const Event& a, const Event& b) { return a.ts_ns < b.ts_ns; });

    auto s = split_harness(v, kPort);
    EXPECT_EQ(s.harness_exits, 1u);
    ASSERT_EQ(s.harness_ns.size(), 1u);
    EXPECT_EQ(s.harness_ns[0], 275000u);
    EXPECT_EQ(s.test.size(), v.size() - 4);
    for (const auto& e : s.test) EXPECT_FALSE(e.type == EventType::Pio && e.a == kPort);

    auto rep = analyze(s.test, "vmx", {});
    uint64_t exits = 0, total = 0;
    for (const auto& r : rep.rows) exits += r.count, total += r.total_ns;
    EXPECT_EQ(exits, 3u);             // two of the test's, one of thread 8's
    EXPECT_EQ(total, 100u + 120u + 100u);
}

TEST(ProfileHarness, WithoutKvmExitThePioAndItsUserspaceExitGo) {
    std::vector<Event> v = {harness_event(0, 3, EventType::Pio, 0x1234, 0), harness_event(1, 3, EventType::UserspaceExit, 2),
                            harness_event(5, 3, EventType::Pio, kPort, 1), harness_event(6, 3, EventType::UserspaceExit, 2),
                            harness_event(9, 3, EventType::Msr, 0x3b, 0)};
    auto s = split_harness(v, kPort);
    EXPECT_EQ(s.harness_exits, 1u);
    EXPECT_TRUE(s.harness_ns.empty());
    ASSERT_EQ(s.test.size(), 3u);
    EXPECT_EQ(s.test[0].a, 0x1234u);
    EXPECT_EQ(s.test[1].type, EventType::UserspaceExit);
    EXPECT_EQ(s.test[2].type, EventType::Msr);
}

TEST(ProfileHarness, NoHarnessEventsKeepsEverything) {
    std::vector<Event> v;
    pio_exit(v, 0, 1, 0x4d0, 50, false);
    auto s = split_harness(v, kPort);
    EXPECT_EQ(s.harness_exits, 0u);
    EXPECT_EQ(s.test.size(), v.size());
}
