// `--format ktap` makes exitbench a kselftest-style test: KTAP on stdout and
// kselftest's exit status, so a kselftest runner (or kernel CI reading its
// KTAP) can run it unchanged.
#pragma once
#include <functional>
#include <string>

#include "lab/vocabulary.h"
#include "report/exporter.h"

namespace eb::cli {

// kselftest's exit codes (tools/testing/selftests/kselftest.h): 2 and 3 mean
// XFAIL and XPASS there, so exitbench's usage (2) and host (3) errors must
// not reach a runner as they are.
enum KselftestExit { kKsftPass = 0, kKsftFail = 1, kKsftSkip = 4 };

// What --format's help says about ktap.
inline constexpr const char* kKtapFormatHelp =
    ". ktap (KTAP version 1, as kselftest prints it) also makes the exit status kselftest's: 0 pass; 1 fail, "
    "including usage and host errors; 4 skip, when every test was skipped or KVM cannot be used here (then "
    "stdout is \"1..0 # SKIP reason\"); 130 interrupted";

inline bool ktap_stdout(const std::string& format) { return format == "ktap"; }

// `command`, where KVM that cannot be used at all (NoKvm) is kselftest's skip:
// "1..0 # SKIP reason" on stdout, the reason on stderr, kKsftSkip.
std::function<int()> skip_without_kvm(std::function<int()> command);
// exitbench's exit status as kselftest's.
int kselftest_status(int rc);
// kKsftSkip when every test (and configuration) was skipped, else `rc`.
int skip_if_all_skipped(int rc, const lab::RunReport& r);
int skip_if_all_skipped(int rc, const report::Comparison& c);
// kKsftFail (exitbench's kTestFailed) when a configuration of `c` failed,
// its case "not ok" in the KTAP, else `rc`: kselftest's fail, as for a run.
int fail_if_any_failed(int rc, const report::Comparison& c);
// A KTAP document for a command that failed before printing one: a plan of
// one failed case whose diagnostic says `why` (kselftest prints its
// "Bail out!" the same way, before its totals).
std::string ktap_error(std::string_view why);

} // namespace eb::cli
