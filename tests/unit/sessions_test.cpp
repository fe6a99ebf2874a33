// The run's session order against a fake test runner (no /dev/kvm): a later
// session starts from the batch size the test calibrated, a hang is learnt
// once, and the wall-time account of a run adds up.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "suite/sessions.h"

using namespace eb;

namespace {

// Runs every test "successfully" with a batch size of its own, except those
// named in `hang_on`, which hang on their n-th call (from 1). Records the
// reuse_batch each call was given.
struct FakeRunner {
    std::map<std::string, uint32_t> hang_on;
    std::map<std::string, std::vector<uint64_t>> reuse_seen;
    uint64_t size = 1000;

    suite::TestResult operator()(const suite::TestSpec& t, uint64_t reuse_batch) {
        auto& seen = reuse_seen[t.name];
        seen.push_back(reuse_batch);
        suite::TestResult r;
        r.name = t.name;
        if (auto h = hang_on.find(t.name); h != hang_on.end() && h->second == seen.size()) {
            r.status = suite::Status::Hung;
            r.detail = "no guest progress";
            return r;
        }
        r.status = suite::Status::Ok;
        // The first session calibrates a size; later ones keep what they were given.
        uint64_t n = reuse_batch ? reuse_batch : size++;
        r.iterations = n;
        r.sessions.push_back({{10, 11}, n, reuse_batch != 0});
        return r;
    }
};

std::vector<suite::TestSpec> sessions_specs(std::initializer_list<const char*> names) {
    std::vector<suite::TestSpec> out;
    for (const char* n : names) out.push_back(suite::TestSpec{.name = n, .summary = "", .body = "nop", .expect = {}});
    return out;
}

std::vector<const suite::TestSpec*> sessions_ptrs(const std::vector<suite::TestSpec>& specs) {
    std::vector<const suite::TestSpec*> out;
    for (const auto& t : specs) out.push_back(&t);
    return out;
}

suite::RunSettings sessions_settings(uint32_t sessions) {
    suite::RunSettings s;
    s.sessions = sessions;
    s.order_seed = 7;
    return s;
}

const suite::TestResult& sessions_result(const std::vector<suite::TestResult>& rs, const std::string& name) {
    for (const auto& r : rs)
        if (r.name == name) return r;
    throw std::runtime_error("no result for " + name);
}

} // namespace

TEST(Sessions, LaterSessionsStartFromTheCalibratedBatchSize) {
    auto specs = sessions_specs({"cpuid", "rdmsr"});
    FakeRunner fake;
    std::atomic<bool> no{false};
    auto rs = suite::run_sessions(sessions_ptrs(specs), sessions_settings(3), no, std::ref(fake));
    ASSERT_EQ(rs.size(), 2u);
    for (const auto& r : rs) {
        const auto& seen = fake.reuse_seen[r.name];
        ASSERT_EQ(seen.size(), 3u) << r.name;
        EXPECT_EQ(seen[0], 0u) << r.name << ": the first session calibrates";
        EXPECT_EQ(seen[1], r.sessions[0].iterations) << r.name;
        EXPECT_EQ(seen[2], r.sessions[0].iterations) << r.name;
        EXPECT_FALSE(r.sessions[0].batch_reused);
        EXPECT_TRUE(r.sessions[1].batch_reused);
    }
}

TEST(Sessions, AHangIsLearntOnceAndNamesItsSession) {
    auto specs = sessions_specs({"cpuid", "stuck"});
    FakeRunner fake;
    fake.hang_on["stuck"] = 1;
    std::atomic<bool> no{false};
    std::vector<std::string> done;
    auto rs = suite::run_sessions(sessions_ptrs(specs), sessions_settings(3), no, std::ref(fake),
                                  [&](const suite::TestResult& r) { done.push_back(r.name); });
    EXPECT_EQ(fake.reuse_seen["stuck"].size(), 1u) << "a hung test ran again";
    EXPECT_EQ(fake.reuse_seen["cpuid"].size(), 3u);
    EXPECT_EQ(done.size(), 4u);
    const auto& r = sessions_result(rs, "stuck");
    EXPECT_EQ(r.status, suite::Status::Hung);
    EXPECT_EQ(r.hung_in_session, 1u);
    EXPECT_EQ(r.sessions_not_rerun, 2u);
    EXPECT_NE(r.detail.find("hung in session 1 of 3; not rerun in 2 later sessions"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("--retry-hung"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("no guest progress"), std::string::npos) << r.detail;
    EXPECT_EQ(sessions_result(rs, "cpuid").sessions_not_rerun, 0u);
}

TEST(Sessions, AHangInALaterSessionKeepsWhatEarlierOnesMeasured) {
    auto specs = sessions_specs({"cpuid", "flaky"});
    FakeRunner fake;
    fake.hang_on["flaky"] = 2;
    std::atomic<bool> no{false};
    auto rs = suite::run_sessions(sessions_ptrs(specs), sessions_settings(3), no, std::ref(fake));
    const auto& r = sessions_result(rs, "flaky");
    EXPECT_EQ(fake.reuse_seen["flaky"].size(), 2u);
    EXPECT_EQ(r.status, suite::Status::Hung);
    EXPECT_EQ(r.hung_in_session, 2u);
    EXPECT_EQ(r.sessions_not_rerun, 1u);
    EXPECT_EQ(r.sessions.size(), 1u) << "session 1's measurement is kept";
    EXPECT_NE(r.detail.find("hung in session 2 of 3; not rerun in 1 later session "), std::string::npos) << r.detail;
}

TEST(Sessions, RetryHungRerunsAHungTest) {
    auto specs = sessions_specs({"stuck"});
    FakeRunner fake;
    fake.hang_on["stuck"] = 1;
    std::atomic<bool> no{false};
    auto set = sessions_settings(3);
    set.retry_hung = true;
    auto rs = suite::run_sessions(sessions_ptrs(specs), set, no, std::ref(fake));
    EXPECT_EQ(fake.reuse_seen["stuck"].size(), 3u);
    ASSERT_EQ(rs.size(), 1u);
    EXPECT_EQ(rs[0].status, suite::Status::Hung);
    EXPECT_EQ(rs[0].sessions_not_rerun, 0u);
    EXPECT_EQ(rs[0].detail.find("not rerun"), std::string::npos) << rs[0].detail;
}

// The run's account: the named phases and "other" add up to the run's wall
// time exactly (tolerance 0 ns), and the tests' own "other" is part of the run's.
TEST(WallAccount, PhasesAndOtherAddUpToTheRunsWallTime) {
    suite::TestResult a, b;
    a.wall = {.measured = 800, .warmup = 300, .vm_start = 200, .teardown = 50, .other = 25, .total = 1375};
    b.wall = {.measured = 100, .warmup = 10, .vm_start = 20, .teardown = 5, .watchdog = 3000, .other = 7,
              .total = 3142};
    auto w = suite::account_run({a, b}, 7000, 1200, 400);
    EXPECT_EQ(w.measured, 900);
    EXPECT_EQ(w.warmup, 310);
    EXPECT_EQ(w.vm_start, 220);
    EXPECT_EQ(w.teardown, 55);
    EXPECT_EQ(w.watchdog, 3000);
    EXPECT_EQ(w.trace_verify, 1200);
    EXPECT_EQ(w.setup, 400);
    EXPECT_EQ(w.total, 7000);
    EXPECT_EQ(w.named() + w.other, w.total);
    EXPECT_GE(w.other, a.wall.other + b.wall.other) << "time outside the tests went missing";

}

// Sessions merged into one result keep every session's time, the
// interrupted one's too.
TEST(WallAccount, MergedSessionsSumTheirTime) {
    suite::TestResult s1, s2;
    s1.name = s2.name = "cpuid";
    s1.status = suite::Status::Ok;
    s2.status = suite::Status::Interrupted;
    s1.sessions.push_back({{5}, 64});
    s1.wall = {.measured = 10, .other = 2, .total = 12};
    s2.wall = {.vm_start = 4, .total = 4};
    auto m = suite::merge_sessions({s1, s2});
    EXPECT_EQ(m.wall.total, 16);
    EXPECT_EQ(m.wall.measured + m.wall.vm_start + m.wall.other, 16);
}
