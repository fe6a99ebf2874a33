// The VMM's per-exit histogram and the split of a userspace exit's cost.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "suite/result.h"
#include "vmm/exit_times.h"

using namespace eb;

TEST(ExitTimes, BucketsCoverEveryValueInOrder) {
    EXPECT_EQ(vmm::time_bucket(0), 0u);
    EXPECT_EQ(vmm::time_bucket(63), 63u);
    EXPECT_EQ(vmm::time_bucket(64), 64u);
    for (uint64_t v : {64ull, 65ull, 100ull, 1000ull, 123456ull, 1ull << 30, (1ull << 42) - 1}) {
        size_t b = vmm::time_bucket(v);
        EXPECT_LE(vmm::time_bucket_low(b), v) << v;
        EXPECT_GT(vmm::time_bucket_high(b), v) << v;
        // At most 1/32 wide: 3% resolution.
        EXPECT_LE(double(vmm::time_bucket_high(b) - vmm::time_bucket_low(b)), double(vmm::time_bucket_low(b)) / 32 + 1);
    }
    EXPECT_EQ(vmm::time_bucket(~0ull), vmm::kTimeBuckets - 1);
    for (size_t b = 1; b + 1 < vmm::kTimeBuckets; ++b) EXPECT_EQ(vmm::time_bucket_high(b - 1), vmm::time_bucket_low(b));
}

TEST(ExitTimes, QuantilesWithinTheBucketWidth) {
    vmm::ExitTimes t;
    std::mt19937_64 rng(1);
    std::lognormal_distribution<double> d(std::log(2000.0), 0.3);
    std::vector<uint64_t> xs;
    for (int i = 0; i < 20000; ++i) {
        xs.push_back(uint64_t(d(rng)));
        t.record(xs.back());
    }
    std::sort(xs.begin(), xs.end());
    auto tot = t.read();
    EXPECT_EQ(tot.exits, 20000u);
    for (double q : {0.5, 0.99}) {
        double exact = double(xs[size_t(q * double(xs.size() - 1))]);
        EXPECT_NEAR(tot.quantile(q), exact, exact * 0.035) << q;
    }
    double sum = 0;
    for (auto x : xs) sum += double(x);
    EXPECT_DOUBLE_EQ(tot.vmm_mean(), sum / 20000);
}

TEST(ExitTimes, DifferencesIsolateABatch) {
    vmm::ExitTimes t;
    t.record(10);
    auto before = t.read();
    t.record(30);
    t.record(50);
    auto batch = t.read() - before;
    EXPECT_EQ(batch.exits, 2u);
    EXPECT_EQ(batch.vmm_cycles, 80u);
    EXPECT_DOUBLE_EQ(batch.quantile(0), 30);
    EXPECT_DOUBLE_EQ(batch.quantile(1), 50);
    EXPECT_EQ(vmm::ExitTimeTotals{}.quantile(0.5), 0);
}

TEST(UserspaceSplit, TheRemainderIsTheKernelAndHardware) {
    suite::UserTimes u;
    for (int i = 0; i < 100; ++i) {
        u.totals.exits++;
        u.totals.vmm_cycles += 300;
        u.totals.hist[vmm::time_bucket(300)]++;
    }
    u.iterations = 100;  // one exit per iteration
    auto s = suite::userspace_split(u, 5100, 100.0);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->exits, 100u);
    EXPECT_DOUBLE_EQ(s->vmm_mean, 300);
    EXPECT_DOUBLE_EQ(s->exit_cycles, 5000);   // minus the baseline
    EXPECT_DOUBLE_EQ(s->kernel_cycles, 4700);
    EXPECT_NEAR(s->vmm_p50, 300, 300 * 0.035);

    u.iterations = 50;  // two exits per iteration: the cost is per exit
    s = suite::userspace_split(u, 5100, std::nullopt);
    EXPECT_DOUBLE_EQ(s->exit_cycles, 2550);
    EXPECT_DOUBLE_EQ(s->kernel_cycles, 2250);

    EXPECT_FALSE(suite::userspace_split(suite::UserTimes{}, 5100, std::nullopt));
}
