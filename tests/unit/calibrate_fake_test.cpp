// lab::calibrate over fake runs (no child process, no /dev/kvm): the words
// each run gets, the reduction per test, the store, and the stops.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>

#include "lab/calibrate.h"
#include "sys/error.h"
#include "tests/temp_dir.h"

using namespace eb;

namespace {

// Run k of `cpuid` (sessions of log-normal repeats) and of `flaky`, which
// fails in every run but run `flaky_ok`; each test takes 0.5 s.
suite::RunReport calib_run(std::mt19937_64& rng, size_t k, size_t flaky_ok) {
    std::normal_distribution<double> z(0, 1);
    suite::RunReport r;
    r.provenance.hostname = "fakehost";
    r.provenance.boot_id = "boot-1";
    r.provenance.timestamp_utc = "2026-12-04T18:00:00Z";
    r.host.kernel_release = "6.1.0";
    r.host.tsc_mhz = 1000;
    r.settings.sessions = 3;
    r.settings.repeats = 4;
    for (const char* name : {"cpuid", "flaky"}) {
        suite::TestResult t{.name = name, .status = suite::Status::Ok};
        t.wall_seconds = 0.5;
        if (std::string(name) == "flaky" && k != flaky_ok) {
            t.status = suite::Status::Failed;
            t.detail = "the fake guest failed";
            r.results.push_back(t);
            continue;
        }
        double run = 0.01 * z(rng);
        for (int s = 0; s < 3; ++s) {
            double ses = run + 0.005 * z(rng);
            std::vector<double> v;
            for (int i = 0; i < 4; ++i) v.push_back(1000 * std::exp(ses + 0.002 * z(rng)));
            t.sessions.push_back({v, 1000});
        }
        r.results.push_back(t);
    }
    return r;
}

struct FakeCalibrationRuns {
    std::mt19937_64 rng{11};
    std::vector<std::vector<std::string>> words;
    std::atomic<bool>* interrupt = nullptr;  // raised during the first run, when set

    lab::FinishedRun operator()(size_t k, const std::vector<std::string>& w) {
        words.push_back(w);
        if (interrupt) *interrupt = true;
        return {calib_run(rng, k, 2), 2.0};
    }
};

lab::CalibrateRequest calib_request(const test::TempDir& tmp, size_t runs) {
    lab::CalibrateRequest req;
    req.run_words = {"run", "cpuid", "flaky"};
    req.runs = runs;
    req.db = tmp.path("history.db");
    return req;
}

} // namespace

TEST(LabCalibrate, EachRunGetsTheSessionsRepeatsAndAResultFd) {
    test::TempDir tmp;
    FakeCalibrationRuns fake;
    std::atomic<bool> stop{false};
    std::vector<size_t> progress;
    lab::calibrate(calib_request(tmp, 3), stop, [&](size_t k) { progress.push_back(k); }, std::ref(fake));
    EXPECT_EQ(progress, (std::vector<size_t>{1, 2, 3}));
    ASSERT_EQ(fake.words.size(), 3u);
    EXPECT_EQ(fake.words[0], (std::vector<std::string>{"exitbench", "run", "cpuid", "flaky", "--sessions", "3",
                                                       "--repeats", "4", "--json", "/proc/self/fd/3", "--no-save"}));
}

// flaky gives one usable run of three: it is left out with its status and
// why; cpuid is reduced from all three, stored, and planned.
TEST(LabCalibrate, ReducesTheRunsPerTestAndStoresTheCalibration) {
    test::TempDir tmp;
    FakeCalibrationRuns fake;
    std::atomic<bool> stop{false};
    auto out = lab::calibrate(calib_request(tmp, 3), stop, [](size_t) {}, std::ref(fake));
    EXPECT_EQ(out.not_saved, "");
    EXPECT_GT(out.calibration.id, 0) << "stored in the history";
    EXPECT_TRUE(std::filesystem::exists(tmp.path("history.db")));
    ASSERT_EQ(out.calibration.tests.size(), 1u);
    EXPECT_EQ(out.calibration.tests[0].test, "cpuid");
    EXPECT_EQ(out.calibration.tests[0].levels.runs, 3u);
    EXPECT_NEAR(out.calibration.tests[0].costs.run, 1.0, 1e-9) << "2 s a process less the two tests' 0.5 s";
    EXPECT_EQ(out.left_out, (std::vector<std::string>{"flaky: failed: the fake guest failed"}));
    ASSERT_EQ(out.tests.size(), 1u);
    EXPECT_EQ(out.tests[0].boots.boots, 1u) << "the stored calibration's boot, read back";
    EXPECT_GT(out.tests[0].allocation.runs, 1u) << "the plan is of two or more runs a side";
    EXPECT_EQ(out.runs.size(), 3u);
}

TEST(LabCalibrate, OneRunIsBadInputAndNothingRuns) {
    test::TempDir tmp;
    FakeCalibrationRuns fake;
    std::atomic<bool> stop{false};
    EXPECT_THROW(lab::calibrate(calib_request(tmp, 1), stop, [](size_t) {}, std::ref(fake)), InputError);
    EXPECT_TRUE(fake.words.empty());
}

TEST(LabCalibrate, AnInterruptStopsBeforeTheNextRunAndStoresNothing) {
    test::TempDir tmp;
    FakeCalibrationRuns fake;
    std::atomic<bool> stop{false};
    fake.interrupt = &stop;
    EXPECT_THROW(lab::calibrate(calib_request(tmp, 3), stop, [](size_t) {}, std::ref(fake)), lab::Interrupted);
    EXPECT_EQ(fake.words.size(), 1u);
    EXPECT_FALSE(std::filesystem::exists(tmp.path("history.db"))) << "no store made for nothing";
}
