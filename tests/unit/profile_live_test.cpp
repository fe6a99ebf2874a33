// profile live --than: each exit paired with its thread's next kvm_entry,
// and only the slower ones reported.
#include <gtest/gtest.h>

#include "lab/profile_live.h"

namespace eb::lab {
namespace {

profile::Event ev(profile::EventType t, uint32_t tid, uint64_t ts_ns, uint64_t reason = 0) {
    profile::Event e{};
    e.type = t, e.tid = tid, e.vcpu = tid - 100, e.ts_ns = ts_ns, e.a = reason;
    return e;
}

TEST(ProfileLive, AnExitSlowerThanTheBoundIsReportedOnItsEntry) {
    SlowExits slow("svm", 5.0);  // microseconds
    EXPECT_FALSE(slow.add(ev(profile::EventType::Exit, 101, 1000, 0x72)));  // CPUID
    EXPECT_FALSE(slow.add(ev(profile::EventType::Exit, 102, 1500, 0x72)));
    EXPECT_FALSE(slow.add(ev(profile::EventType::Entry, 102, 3500))) << "2 us: under the bound";
    auto s = slow.add(ev(profile::EventType::Entry, 101, 11000));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->tid, 101u);
    EXPECT_EQ(s->vcpu, 1u);
    EXPECT_DOUBLE_EQ(s->us, 10.0);
    EXPECT_EQ(s->reason, "cpuid");
    EXPECT_FALSE(slow.add(ev(profile::EventType::Entry, 101, 20000))) << "an entry pairs with one exit only";
}

TEST(ProfileLive, AnEntryWithoutItsExitIsNoExit) {
    SlowExits slow("vmx", 0);
    EXPECT_FALSE(slow.add(ev(profile::EventType::Entry, 7, 100)));
    EXPECT_FALSE(slow.add(ev(profile::EventType::Mmio, 7, 200)));
}

} // namespace
} // namespace eb::lab
