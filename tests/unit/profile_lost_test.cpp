// Lost records: what they discard, and that each costs O(1) however many
// threads the trace has (it once looped over all of them).
#include <gtest/gtest.h>

#include "profile/analyze.h"

using namespace eb::profile;

namespace {

constexpr uint64_t kCpuid = 10;

Event lost_event(EventType t, uint64_t ts, uint32_t tid, uint16_t cpu, uint64_t a = 0) {
    return Event{ts, tid, 0, cpu, t, 0, 0, a, 0};
}

} // namespace

TEST(ProfileLost, OnlyBeginsOpenAcrossALostRecordOnTheirCpuAreDiscarded) {
    std::vector<Event> v = {
        lost_event(EventType::Lost, 5, 0, 0, 1),          // before tid 1's begin: no effect on it
        lost_event(EventType::Exit, 10, 1, 0, kCpuid),
        lost_event(EventType::Exit, 10, 2, 1, kCpuid),
        lost_event(EventType::Exit, 10, 3, 0, kCpuid),
        lost_event(EventType::Lost, 20, 0, 1, 3),         // discards tid 2's exit only
        lost_event(EventType::Entry, 30, 1, 0),
        lost_event(EventType::Entry, 30, 2, 1),
        lost_event(EventType::Exit, 40, 2, 1, kCpuid),    // a new begin after the loss
        lost_event(EventType::Entry, 50, 2, 1),
        lost_event(EventType::Lost, 60, 0, 0, 1),         // tid 3 is still open: discarded, not in flight
    };
    Report r = analyze(v, "vmx", {});
    ASSERT_EQ(r.rows.size(), 1u);
    EXPECT_EQ(r.rows[0].count, 2u);  // tid 1's and tid 2's second exit
    EXPECT_EQ(r.dropped.lost_gap, 2u);
    EXPECT_EQ(r.dropped.no_begin, 0u);
    EXPECT_EQ(r.in_flight_at_end, 0u);
    EXPECT_EQ(r.lost_events, 5u);
}

TEST(ProfileLost, ManyLostRecordsOnManyThreadsStayLinear) {
    constexpr uint32_t n = 200000;
    std::vector<Event> v;
    v.reserve(3 * n);
    for (uint32_t i = 0; i < n; ++i) v.push_back(lost_event(EventType::Exit, i, 1000 + i, 0, kCpuid));
    for (uint32_t i = 0; i < n; ++i) v.push_back(lost_event(EventType::Lost, n + i, 0, 1, 1));  // another CPU
    for (uint32_t i = 0; i < n; ++i) v.push_back(lost_event(EventType::Entry, 2 * n + i, 1000 + i, 0));
    Report r = analyze(v, "vmx", {});
    ASSERT_EQ(r.rows.size(), 1u);
    EXPECT_EQ(r.rows[0].count, n);
    EXPECT_EQ(r.lost_events, n);
    // Quadratic, this is 4e10 steps: minutes, and ctest's timeout names this
    // test. The speed itself is exitbench_digest_bench's lossy trace.
}
