// The use cases called as a library, the way a program other than the
// command line would: no cli/ header is included here.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include "lab/compare_live.h"
#include "lab/profile_exec.h"
#include "lab/run.h"
#include "sys/error.h"
#include "tests/temp_dir.h"

using namespace eb;

namespace {

// One test whose single session has these repeats.
suite::RunReport round_of(std::vector<double> repeats, const std::string& stamp = "2026-01-02T03:04:05Z") {
    suite::RunReport r;
    r.provenance.timestamp_utc = stamp;
    r.settings.sessions = 1;
    r.results.push_back({.name = "cpuid", .status = suite::Status::Ok, .sessions = {{std::move(repeats), 1024}}});
    return r;
}

} // namespace

TEST(LabRun, AMissingDeviceIsNoKvmBeforeAnythingRuns) {
    test::TempDir tmp;
    try {
        lab::open_kvm(tmp.path("no-kvm-here"));
        FAIL() << "a missing device opened";
    } catch (const lab::NoKvm& e) {
        EXPECT_NE(std::string(e.what()).find("no-kvm-here"), std::string::npos) << e.what();
    }
}

TEST(LabProfileExec, AnUnknownCommandIsBadInputAndLeavesNoTrace) {
    test::TempDir tmp;
    profile::RecordOptions o;
    o.out = tmp.path("t.trace");
    std::atomic<bool> stop{false};
    EXPECT_THROW(lab::record_command({"exitbench-test-no-such-command"}, o, stop), InputError);
    EXPECT_FALSE(std::filesystem::exists(o.out)) << "nothing may be recorded for a command that cannot run";
}

TEST(LabCompareLive, EachConfigurationIsSavedAsOneRunOfItsRounds) {
    lab::LiveRuns ran;
    ran.labels = {"A", "B"};
    ran.shown = {"", "--guest-msr spec_ctrl=1"};
    ran.rounds = {{round_of({100, 101}), round_of({102, 103}), round_of({99, 98})},
                  {round_of({110, 111}), round_of({112, 113}), round_of({109, 108})}};
    auto runs = lab::runs_to_save(ran, "", "");
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].label, "compare-2026-01-02T030405Z/A") << "a label without colons, from the first round";
    EXPECT_EQ(runs[1].label, "compare-2026-01-02T030405Z/B");
    EXPECT_EQ(runs[0].note, "compare, configuration A: (defaults)");
    EXPECT_EQ(runs[1].note, "compare, configuration B: --guest-msr spec_ctrl=1");
    EXPECT_EQ(runs[1].run.settings.sessions, 3u) << "each round becomes a session";
    ASSERT_EQ(runs[1].run.results.size(), 1u);
    ASSERT_EQ(runs[1].run.results[0].sessions.size(), 3u);
    EXPECT_EQ(runs[1].run.results[0].sessions[2].samples, (std::vector<double>{109, 108})) << "in round order";

    auto named = lab::runs_to_save(ran, "spec", "my note");
    EXPECT_EQ(named[0].label, "spec/A");
    EXPECT_EQ(named[1].note, "my note");
    EXPECT_TRUE(lab::runs_to_save(lab::LiveRuns{}, "", "").empty()) << "nothing ran, nothing to save";
}
