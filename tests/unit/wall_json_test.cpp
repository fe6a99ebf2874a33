// The run's JSON keeps the wall-time account to the nanosecond, and the
// session fields of the runner (a reused batch size, a hang not rerun); files
// from before them still read.
#include <gtest/gtest.h>

#include "result/json.h"

using namespace eb;

TEST(WallJson, TheAccountRoundTripsToTheNanosecondAndOldFilesReadWithout) {
    suite::RunReport rep;
    rep.host.tsc_mhz = 1000;
    rep.wall_time = suite::WallSplit{.measured = 900, .warmup = 310, .vm_start = 220, .teardown = 55,
                                     .watchdog = 3000, .trace_verify = 1200, .setup = 400, .other = 915,
                                     .total = 7000};
    auto back = result::from_json(result::to_json(rep));
    ASSERT_TRUE(back.wall_time);
    EXPECT_EQ(back.wall_time->named() + back.wall_time->other, 7000);
    EXPECT_EQ(back.wall_time->watchdog, 3000);
    EXPECT_EQ(back.wall_time->setup, 400);
    EXPECT_FALSE(result::from_json([&] {
                     auto j = result::to_json(rep);
                     j.erase("wall_time");  // a file from before the account
                     return j;
                 }()).wall_time);
}

TEST(WallJson, ReuseAndHangFieldsRoundTripAndOldFilesReadWithout) {
    suite::RunReport rep;
    rep.host.tsc_mhz = 1000;
    rep.settings.retry_hung = true;
    suite::TestResult t;
    t.name = "stuck";
    t.status = suite::Status::Hung;
    t.sessions = {{{5, 6}, 64, false}, {{5, 6}, 64, true}};
    t.hung_in_session = 3;
    t.sessions_not_rerun = 2;
    rep.results.push_back(t);
    auto j = result::to_json(rep);
    auto back = result::from_json(j);
    ASSERT_EQ(back.results.size(), 1u);
    EXPECT_TRUE(back.settings.retry_hung);
    EXPECT_FALSE(back.results[0].sessions[0].batch_reused);
    EXPECT_TRUE(back.results[0].sessions[1].batch_reused);
    EXPECT_EQ(back.results[0].hung_in_session, 3u);
    EXPECT_EQ(back.results[0].sessions_not_rerun, 2u);
    // Written before these fields existed: still version 4, read without them.
    j["settings"].erase("retry_hung");
    j["results"][0].erase("not_rerun_after_hang");
    for (auto& s : j["results"][0]["sessions"]) s.erase("batch_reused");
    auto old = result::from_json(j);
    EXPECT_FALSE(old.settings.retry_hung);
    EXPECT_EQ(old.results[0].sessions_not_rerun, 0u);
    EXPECT_FALSE(old.results[0].sessions[1].batch_reused);
}
