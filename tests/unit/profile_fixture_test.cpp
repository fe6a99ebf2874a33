// The analyzer on traces recorded for real: one inside nested kvm_amd
// (exitbench run cpuid rd_tsc_adjust_msr inl_from_qemu -n 16 -r 1), one on
// this workplace's kvm_pvm, where kvm_exit/kvm_entry never fire.
#include <gtest/gtest.h>

#include "report/profile_text.h"
#include "profile/analyze.h"
#include "tests/paths.h"

using namespace eb::profile;
using eb::report::render_extended;
using eb::report::render_perf;
using eb::report::render_profile_compare;

namespace {
std::string profile_fixture(const char* name) { return eb::test::fixtures_dir() + "/profile/" + name; }
const Row* row(const Report& r, const std::string& name) {
    for (const auto& x : r.rows)
        if (x.name == name) return &x;
    return nullptr;
}
} // namespace

TEST(ProfileFixtures, NestedSvmPairsExitsWithEntries) {
    auto trace = read_trace(profile_fixture("nested-svm-cpuid-msr-io.trace"));
    EXPECT_EQ(trace.header.isa, "svm");
    auto rep = analyze(trace, {});
    EXPECT_TRUE(rep.degraded.empty());
    EXPECT_EQ(rep.dropped.total(), 0u);
    ASSERT_NE(row(rep, "cpuid"), nullptr);
    EXPECT_EQ(row(rep, "cpuid")->count, 32u);  // 16 iterations x (warm-up + 1 repeat)
    ASSERT_NE(row(rep, "msr"), nullptr);
    EXPECT_GE(row(rep, "msr")->count, 32u);    // plus the runtime's APIC and EFER accesses
    ASSERT_NE(row(rep, "io"), nullptr);
    EXPECT_GE(row(rep, "io")->count, 32u);     // plus one ucall per batch
    for (const auto& r : rep.rows) EXPECT_GT(r.min_ns, 0u) << r.name;
    auto perf = render_perf(rep);
    EXPECT_NE(perf.find("Total Samples:"), std::string::npos);
    // The same trace against itself: no change anywhere.
    for (const auto& c : compare(rep, rep)) {
        if (c.timed) {
            EXPECT_EQ(c.mean_rel, 0) << c.name;
        }
    }
}

TEST(ProfileFixtures, SoftwareBackendIsCountsOnlyAndSaysSo) {
    auto trace = read_trace(profile_fixture("host-pvm-mmio.trace"));
    auto rep = analyze(trace, {});
    EXPECT_FALSE(rep.degraded.empty());
    EXPECT_NE(rep.degraded.find("kvm_exit"), std::string::npos);
    EXPECT_EQ(rep.events_by_type[static_cast<size_t>(EventType::Exit)], 0u);
    bool mmio = false;
    for (const auto& r : rep.rows) {
        EXPECT_FALSE(r.timed);
        mmio |= r.type == EventType::Mmio;
    }
    EXPECT_TRUE(mmio);
    EXPECT_EQ(render_perf(rep).find("Total Samples:0"), std::string::npos);
}
