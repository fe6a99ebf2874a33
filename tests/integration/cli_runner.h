// Runs the exitbench binary as a user would and captures what it says.
#pragma once
#include <csignal>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kvm_test.h"  // KVM_TEST: the tests that need /dev/kvm

struct CliResult {
    int rc = -1;           // exit status, or 128+signal
    std::string out, err;
    int pid = 0;           // of the exitbench process, gone by now
    int term_signal = 0;   // the signal that ended it, if one did (then rc is 128 + it)
    bool mid_work = false; // `signal` reached it while it was stopped mid-command (CliOptions::freeze)
    bool timed_out = false; // killed at CliOptions::timeout_s; err then ends with a line naming the invocation
};

struct CliOptions {
    std::vector<std::string> env;   // extra NAME=VALUE
    std::vector<std::string> wrap;  // command prefix, e.g. setpriv ...
    double sigint_after_s = -1;     // send `signal` (then `second_signal`, if any) after this long,
    std::function<bool(int pid)> signal_when;  // or once this holds for the child

    int signal = SIGINT;
    int second_signal = 0;
    std::string stdout_file;        // the child's stdout, instead of a pipe (e.g. /dev/full)
    bool close_stdout = false;      // a reader that goes away at once, as `| head -0`
    // A hang guard, not a speed check: SIGKILL after this long, generous for
    // a sanitizer's binary on a loaded machine (the speed is exitbench_bench's).
    double timeout_s = 600;
    std::string wait_for;           // the signal (or hook) is due only once stderr or stdout holds this mark
    // When due: SIGSTOP it, and only once it is stopped send `signal`, then
    // SIGCONT: the signal provably arrives before the command has finished
    // (CliResult::mid_work); a command that ended first is not signalled.
    bool freeze = false;
};

CliResult run_cli(const std::vector<std::string>& args, const CliOptions& opt = {});
bool have_kvm();
// A program on PATH (command -v).
bool have_tool(const char* tool);
// An error of exactly one line, as every refusal must be.
bool one_line(const std::string& s);
// A kvm-unit-tests log among the fixtures (tests/fixtures/kut).
std::string kut_fixture(const std::string& name);
// Whether `path` is still a null device (as root, remade if a regression
// replaced it: a failing test must not leave the machine without /dev/null).
bool null_device_intact(const std::string& path);
// The export formats every command writes (--export-FORMAT).
inline constexpr const char* kExportFormats[] = {"json", "csv", "markdown", "text", "html", "openmetrics"};
// Whether process `pid` catches `sig` (its SigCgt in /proc): exitbench has
// started and installed its handlers, so a signal now reaches the command.
bool catches(int pid, int sig);
// A file in a scratch directory of this test process, removed when it exits;
// eb::test::TempDirTest gives each test a directory of its own instead.
std::string temp_path(const std::string& name);

// A fresh directory (mkdtemp) removed with its contents when this goes.
struct TempDir {
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string path;
    std::string file(const std::string& name) const { return path + "/" + name; }
};

// A whole file's bytes ("" when it cannot be read).
std::string slurp(const std::string& path);

// The result of test `name` in a run report.
#include "suite/result.h"
inline const eb::suite::TestResult& find(const eb::suite::RunReport& r, const std::string& name) {
    for (const auto& t : r.results)
        if (t.name == name) return t;
    throw std::runtime_error("no result for " + name);
}
