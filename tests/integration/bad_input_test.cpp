// Every bad input: a one-line error and a non-zero exit, never a crash or hang.
#include <fstream>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "tests/temp_dir.h"

namespace {
void expect_one_line_error(const CliResult& r, int rc, const std::string& needle) {
    EXPECT_EQ(r.rc, rc) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("exitbench: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}
} // namespace

TEST(BadInput, UnknownTestNameSuggestsTheClosest) {
    expect_one_line_error(run_cli({"run", "cpuidd"}), 2, "did you mean 'cpuid'");
    expect_one_line_error(run_cli({"run", "no_such_thing_at_all"}), 2, "unknown test");
}

TEST(BadInput, BadNumbers) {
    expect_one_line_error(run_cli({"run", "cpuid", "--iterations", "0"}), 2, "--iterations");
    expect_one_line_error(run_cli({"run", "cpuid", "--iterations", "abc"}), 2, "--iterations");
    expect_one_line_error(run_cli({"run", "cpuid", "--repeats", "-2"}), 2, "--repeats");
    expect_one_line_error(run_cli({"run", "cpuid", "--time-goal", "soon"}), 2, "--time-goal");
    expect_one_line_error(run_cli({"run", "cpuid", "--cpu", "4096"}), 2, "--cpu");
    expect_one_line_error(run_cli({"run", "cpuid", "--cpu", "x"}), 2, "--cpu");
    expect_one_line_error(run_cli({"run", "cpuid", "--smp", "0"}), 2, "--smp");
    expect_one_line_error(run_cli({"run", "cpuid", "--smp", "65"}), 2, "--smp");
    expect_one_line_error(run_cli({"run", "cpuid", "--pin", "0,x"}), 2, "--pin");
    expect_one_line_error(run_cli({"run", "cpuid", "--pin", "5-2"}), 2, "--pin");
    expect_one_line_error(run_cli({"run", "cpuid", "--pin", "4000"}), 2, "--pin 4000");
    expect_one_line_error(run_cli({"run", "cpuid", "--apic", "x3apic"}), 2, "--apic");
}

TEST(BadInput, NumbersOutOfRangeAreRejectedNotWrappedOrClamped) {
    expect_one_line_error(run_cli({"run", "cpuid", "--watchdog", "1e10"}), 2, "--watchdog needs a duration from");
    expect_one_line_error(run_cli({"run", "cpuid", "--time-goal", "1e10"}), 2, "--time-goal");
    expect_one_line_error(run_cli({"run", "cpuid", "--repeats", "2000000"}), 2, "from 1 to 1048576");
    expect_one_line_error(run_cli({"run", "cpuid", "--iterations", "99999999999999"}), 2, "--iterations");
    expect_one_line_error(run_cli({"run", "cpuid", "--per-exit", "-n", "2000000"}), 2, "--per-exit");
    expect_one_line_error(run_cli({"run", "cpuid", "--per-exit", "-r", "100"}), 2, "cap of 16777216 samples");
    expect_one_line_error(run_cli({"run", "cpuid", "--smp", " 2"}), 2, "--smp");
    for (const char* v : {" -1", "4294967296", "-1"})
        expect_one_line_error(run_cli({"profile", "report", "-i", "/nonexistent.trace", "--vcpu", v}), 2, "--vcpu");
    expect_one_line_error(run_cli({"profile", "record", "-a", "--buffer-kb", "99999999"}), 2, "--buffer-kb");
    expect_one_line_error(run_cli({"profile", "record", "-p", "0", "--duration", "1s"}), 2, "--pid");
    expect_one_line_error(run_cli({"profile", "record", "-a", "--duration", "1e10"}), 2, "--duration");
    expect_one_line_error(run_cli({"profile", "live", "-a", "-d", "1ms"}), 2, "--delay");
}

TEST(BadInput, UnknownOptionOrFormatOrCommand) {
    expect_one_line_error(run_cli({"run", "--frobnicate"}), 2, "frobnicate");
    expect_one_line_error(run_cli({"run", "--format", "xml"}), 2, "--format");
    expect_one_line_error(run_cli({"dance"}), 2, "unknown command or option 'dance'");
    expect_one_line_error(run_cli({}), 2, "a command is required");
    expect_one_line_error(run_cli({"--frobnicate", "run"}), 2, "frobnicate");
}

TEST(BadInput, BadKnobs) {
    expect_one_line_error(run_cli({"run", "cpuid", "--guest-msr", "spec_ctl=1"}), 2, "unknown MSR 'spec_ctl'");
    expect_one_line_error(run_cli({"run", "cpuid", "--guest-msr", "spec_ctrl"}), 2, "MSR=VALUE");
    expect_one_line_error(run_cli({"run", "cpuid", "--guest-msr", "spec_ctrl=lots"}), 2, "not a number");
    expect_one_line_error(run_cli({"run", "cpuid", "--guest-msr", "efer=1"}), 2, "--guest-efer");
    expect_one_line_error(run_cli({"run", "cpuid", "--guest-efer", "nx=maybe"}), 2, "--guest-efer");
    expect_one_line_error(run_cli({"run", "cpuid", "--guest-efer", "lme=on"}), 2, "unknown bit");
    expect_one_line_error(run_cli({"run", "cpuid", "--cpuid=+warp-drive"}), 2, "unknown feature 'warp-drive'");
    expect_one_line_error(run_cli({"run", "cpuid", "--cpuid", "x2apic"}), 2, "--cpuid takes");
}

TEST(BadInput, UnknownRecipe) {
    expect_one_line_error(run_cli({"recipe", "run", "efer-swich"}), 2, "did you mean 'efer-switch'");
    expect_one_line_error(run_cli({"recipe", "run"}), 2, "name");
}

TEST(BadInput, BadCompareAndProfileOptions) {
    expect_one_line_error(run_cli({"compare", "cpuid", "--a", "", "--b", "", "--alpha", "2"}), 2, "--alpha");
    expect_one_line_error(run_cli({"compare", "cpuid", "--a", "", "--b", "", "--rounds", "0"}), 2, "--rounds");
    expect_one_line_error(run_cli({"compare", "cpuid", "--a", "", "--b", "", "--fail-if-slower", "lots"}), 2,
                          "--fail-if-slower");
    expect_one_line_error(run_cli({"compare", "cpuid", "--config", "noequals"}), 2, "LABEL=OPTIONS");
    expect_one_line_error(run_cli({"run", "cpuid", "--profile-out", "/nonexistent-dir/t.trace"}), 2,
                          "cannot write /nonexistent-dir/t.trace");
    expect_one_line_error(run_cli({"compare", "cpuid", "--a", "", "--b", "", "--json", "/nonexistent-dir/c.json"}),
                          2, "cannot write /nonexistent-dir/c.json");
    expect_one_line_error(run_cli({"profile", "record", "-a", "-o", "/nonexistent-dir/p.trace"}), 2,
                          "cannot write /nonexistent-dir/p.trace");
}

TEST(BadInput, UnwritableJsonPathFailsBeforeRunning) {
    expect_one_line_error(run_cli({"run", "cpuid", "--json", "/nonexistent-dir/r.json"}), 2,
                          "cannot write /nonexistent-dir/r.json");
}

TEST(BadInput, MissingKvmDevice) {
    expect_one_line_error(run_cli({"--device", "/nonexistent/kvm", "run"}), 3, "does not exist");
    expect_one_line_error(run_cli({"--device", "/dev/null", "list"}), 3, "not a KVM device");
}

KVM_TEST(BadInput, NoPermissionOnKvm) {
    if (access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "setpriv (util-linux) is not installed";
    CliOptions o;
    o.wrap = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
    // --no-save: the store in root's HOME is not 65534's either, and is checked first.
    auto r = run_cli({"run", "cpuid", "--no-save"}, o);
    if (r.rc == 0) GTEST_SKIP() << "user 65534 may open /dev/kvm here";
    expect_one_line_error(r, 3, "no permission");
}

KVM_TEST(BadInput, HostLackingACapability) {
    CliOptions o;
    o.env = {"EXITBENCH_MASK_CAPS=IMMEDIATE_EXIT"};
    expect_one_line_error(run_cli({"run", "cpuid"}, o), 3, "needs KVM_CAP_IMMEDIATE_EXIT, host lacks it");
}

// Messages say what is wrong once, in words: no repeated file name, no errno
// text that repeats the message, the missing directory named.
TEST(BadInput, FileErrorsNameTheProblemOnce) {
    auto r = run_cli({"run", "cpuid", "--json", "/"});
    expect_one_line_error(r, 2, "cannot write /: it is a directory");
    EXPECT_EQ(r.err.find("Is a directory"), std::string::npos) << r.err;
    expect_one_line_error(run_cli({"run", "cpuid", "--json", "/nonexistent-dir/r.json"}), 2,
                          "directory /nonexistent-dir does not exist");
    r = run_cli({"profile", "report", "-i", "/nonexistent-dir/missing.trace"});
    expect_one_line_error(r, 2, "cannot open");
    EXPECT_EQ(r.err.find("missing.trace"), r.err.rfind("missing.trace")) << r.err;
    expect_one_line_error(run_cli({"compare", "/nonexistent-dir/a.json", "/nonexistent-dir/b.json"}), 2,
                          "no such file");
}

// A misspelled option or command gets the nearest real one.
TEST(BadInput, MisspelledOptionsAndCommandsGetADidYouMean) {
    expect_one_line_error(run_cli({"run", "cpuid", "--repeat", "3"}), 2, "did you mean '--repeats'?");
    expect_one_line_error(run_cli({"profile", "report", "--evnt", "msr"}), 2, "did you mean '--event'?");
    expect_one_line_error(run_cli({"rn", "cpuid"}), 2, "did you mean 'run'?");
    expect_one_line_error(run_cli({"completion", "fish"}), 2, "bash or zsh, not 'fish'");
}

// Issue 40, row 9: an empty value is not the default, a saved compare refuses
// what it cannot honour, --precision is strict, and recipe run's bad --format
// is one line (its header is not printed first).
TEST(BadInput, EmptyValuesAndOptionsThatCannotApplyAreRefused) {
    eb::test::TempDir tmp;  // saved results: refused before they are read
    std::string a = tmp.path("a.json"), b = tmp.path("b.json");
    std::ofstream(a) << "{}";
    std::ofstream(b) << "{}";
    for (const char* opt : {"--repeats", "--iterations", "--sessions", "--time-goal", "--watchdog", "--smp", "--db"})
        expect_one_line_error(run_cli({"run", "cpuid", opt, ""}), 2, std::string(opt) + " '': an empty");
    expect_one_line_error(run_cli({"compare", a, b, "--alpha", ""}), 2, "--alpha '': an empty");
    expect_one_line_error(run_cli({"compare", a, b, "--warmup", "2"}), 2, "--warmup applies when");
    expect_one_line_error(run_cli({"compare", a, b, "--retry-hung"}), 2, "--retry-hung does not apply");
    expect_one_line_error(run_cli({"compare", a, b, "--no-trace-verify"}), 2, "--no-trace-verify applies");
    expect_one_line_error(run_cli({"compare", a, b, "--precision", "2"}), 2, "--precision applies");
    expect_one_line_error(run_cli({"compare", "cpuid", "--a", "", "--b", "", "--time-budget", "1s", "--precision", "5x"}),
                          2, "--precision needs a number");
    expect_one_line_error(run_cli({"compare", "cpuid", "--a", "", "--b", "", "--precision", "2"}), 2,
                          "give --time-budget too");
    expect_one_line_error(run_cli({"compare", "cpuid", "--a", "", "--b", "--sessions 2"}), 2,
                          "--sessions does not apply to a live compare");
    auto r = run_cli({"recipe", "run", "efer-switch", "--format", "bogus"});
    expect_one_line_error(r, 2, "--format: unknown format 'bogus'");
    EXPECT_EQ(r.out, "");
}
