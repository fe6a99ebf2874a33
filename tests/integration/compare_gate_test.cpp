// compare's gate decides before anything else can end the command: a true
// regression (B adds --per-exit's two serialized TSC reads to every
// iteration) exits 1 with its REGRESSION line even when the save fails, an
// export fails, or a SIGINT arrives after the last round.
#include <filesystem>
#include <gtest/gtest.h>

#include "cli_runner.h"

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kRegression{"compare", "cpuid", "-n", "32", "--rounds", "4", "--a", "", "--b",
                                           "--per-exit", "--fail-if-slower", "1"};

std::vector<std::string> with(std::vector<std::string> more) {
    auto a = kRegression;
    a.insert(a.end(), more.begin(), more.end());
    return a;
}

// A 4 KiB tmpfs of the test's own at `full`, mounted around exitbench.
CliOptions on_full_fs(const std::string& full) {
    CliOptions o;
    o.wrap = {"/usr/bin/unshare", "-m", "/bin/sh", "-c", "mount -t tmpfs -o size=4k tmpfs " + full + " || exit 99; \"$0\" \"$@\""};
    return o;
}

bool can_mount() { return std::system("unshare -m true 2>/dev/null") == 0; }

// The injected difference (two TSC reads an iteration, --per-exit) is far
// below TCG's noise of microseconds per exit: the nested guest cannot see it.
constexpr const char* kTcgNoise = "its injected difference (two TSC reads an iteration) is far below TCG's noise of microseconds per exit";

KVM_TEST_HOST_ONLY(CompareGate, AFailedSaveKeepsTheGatesExitAndSaysBoth,
    kTcgNoise) {
    if (!can_mount()) GTEST_SKIP() << "needs root to mount a tmpfs (unshare -m)";
    auto full = temp_path("gate_full"), kept = temp_path("gate_kept");
    fs::create_directories(full);
    fs::create_directories(kept);
    auto o = on_full_fs(full);
    o.env = {"TMPDIR=" + kept};
    auto r = run_cli(with({"--db", full + "/h.db"}), o);
    EXPECT_EQ(r.rc, 1) << r.err;
    EXPECT_NE(r.err.find("REGRESSION: cpuid"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("not saved to the history"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("exit status 1 is the gate's; besides, the runs could not be saved"), std::string::npos) << r.err;
    EXPECT_LT(r.err.find("REGRESSION"), r.err.find("not saved")) << "the gate speaks first: " << r.err;
}

KVM_TEST_HOST_ONLY(CompareGate, AFailedExportKeepsTheGatesExit,
    kTcgNoise) {
    if (!can_mount()) GTEST_SKIP() << "needs root to mount a tmpfs (unshare -m)";
    auto full = temp_path("gate_full_export");
    fs::create_directories(full);
    auto r = run_cli(with({"--no-save", "--export-html", full + "/c.html"}), on_full_fs(full));
    EXPECT_EQ(r.rc, 1) << r.err;
    EXPECT_NE(r.err.find("REGRESSION: cpuid"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("exit status 1 is the gate's; besides, an output could not be written"), std::string::npos)
        << r.err;
}

// The signal comes once the export exists: after the last round and after
// the gate, which still decides the exit status.
KVM_TEST_HOST_ONLY(CompareGate, ASigintAfterTheLastRoundKeepsTheGatesExit,
    kTcgNoise) {
    auto json = temp_path("gate_sigint.json");
    fs::remove(json);
    CliOptions o;
    o.signal_when = [&](int) { return fs::exists(json); };
    auto r = run_cli(with({"--no-save", "--export-json", json}), o);
    EXPECT_EQ(r.rc, 1) << r.err;
    EXPECT_NE(r.err.find("REGRESSION: cpuid"), std::string::npos) << r.err;
}

} // namespace
