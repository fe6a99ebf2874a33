#include "cli/manual.h"

#include <algorithm>
#include <fmt/format.h>
#include <utility>
#include <vector>

#include "cli/app.h"
#include "cli/kernel_ab.h"
#include "cli/kselftest.h"

namespace eb::cli {

namespace {

using Rows = std::vector<std::pair<std::string, std::string>>;

// A row a line, the key padded to the widest: help2man makes each an
// indented paragraph (.TP) of the man page's section.
std::string table(std::string_view title, const Rows& rows, std::string_view after = "") {
    size_t w = 3;
    for (const auto& row : rows) w = std::max(w, row.first.size());
    std::string s = fmt::format("\n{}:\n", title);
    for (const auto& [key, text] : rows) s += fmt::format("  {:<{}}  {}\n", key, w, text);
    if (!after.empty()) s += fmt::format("{}\n", after);
    return s;
}

std::string code(int c) { return std::to_string(c); }

Rows general_exits() {
    return {
        {code(kOk), "all good"},
        {code(kTestFailed), "a test failed (mismatch, failed, hung, error)"},
        {code(kUsage), "bad usage or input (one line says why; nothing ran)"},
        {code(kHost), "the host cannot run exitbench (no usable /dev/kvm, tracefs or perf_event_open), or a "
                      "file could not be written"},
        {code(kNotTestable), "compare's --fail-if-slower gate found no regression, but a test was not testable"},
        {code(kNotSaved), "the results could not be saved to the history (kept in a JSON file it names, with "
                          "the command that imports it)"},
        {code(kInternal), "an internal error (a bug, sysexits' EX_SOFTWARE; its text is printed)"},
        {code(kInterrupted), "interrupted by SIGINT, SIGTERM or SIGHUP (what finished is printed and written)"},
    };
}

Rows bisect_exits() {
    return {
        {code(kBisectGood), "good: no test shown slower than --fail-if-slower"},
        {code(kBisectBad), "bad: a test shown slower than --fail-if-slower, after Holm's correction"},
        {code(kBisectSkip), "not testable: a kernel that cannot be booted, a failed boot, fewer boots than "
                            "--boots, no verdict (git bisect skips the commit)"},
        {code(kBisectAbort), "stop the bisection: its own input is bad (a command line the parser rejects, "
                             "--boots, --fail-if-slower, --alpha, the --good label's runs, a store it cannot save "
                             "to), an output that cannot be written, an internal error"},
        {code(kInterrupted), "interrupted by SIGINT, SIGTERM or SIGHUP"},
    };
}

} // namespace

std::string exit_status_help(std::string_view path) {
    if (path == "compare") return "";
    if (path == "bisect-step")
        return table("Exit status", bisect_exits(),
                     fmt::format("No other status: what every other command exits {}, {} or {} with, bisect-step "
                                 "exits {} with (git bisect run would read those as bad).",
                                 static_cast<int>(kUsage), static_cast<int>(kHost), static_cast<int>(kInternal),
                                 static_cast<int>(kBisectAbort)));
    return table("Exit status", general_exits(),
                 fmt::format("With --format ktap (run, compare, recipe run), kselftest's instead: {} pass, {} fail "
                             "(usage and host errors too), {} skip, {} interrupted.",
                             kKsftPass, kKsftFail, kKsftSkip, static_cast<int>(kInterrupted)));
}

std::string environment_help() {
    return table("Environment", {
        {"XDG_DATA_HOME", "the history store is $XDG_DATA_HOME/exitbench/history.db when it is an absolute path"},
        {"HOME", "else ~/.local/share/exitbench/history.db; with neither set, give --db"},
        {"TMPDIR", "scratch files and directories (else /tmp), and where a result that could not be saved "
                   "is kept when the store's directory cannot take it"},
        {"PATH", "where qemu-system-x86_64 and busybox (boot, compare --kernel-a/-b, bisect-step), perf "
                 "(profile import) and profile record's COMMAND are found"},
        {"EXITBENCH_MASK_CAPS", "for tests: KVM capabilities (comma-separated, KVM_CAP_ optional) taken as absent"},
    });
}

std::string files_help() {
    return table("Files", {
        {"/dev/kvm", "the KVM device (--device)"},
        {"~/.local/share/exitbench/history.db",
         "the history store (or under $XDG_DATA_HOME; --db picks another), with SQLite's -wal and -shm beside it"},
        {"/sys/kernel/tracing", "tracefs: profile record and live, run --profile, exit verification by tracepoint"},
        {"/proc/kallsyms", "kernel symbols for run and compare --host-profile"},
        {"/dev/cpu/N/msr", "the host's SPEC_CTRL, read into each result's environment where the msr module is loaded"},
        {"/lib/modules/RELEASE", "the modules boot packs for a kernel (--modules)"},
        {"/var/lib/exitbench/history.db", "the store of exitbench-fleet.service, which /etc/default/exitbench "
                                          "configures (EXITBENCH_ARGS, EXITBENCH_TEXTFILE)"},
        {"/usr/share/doc/exitbench/", "README.md and the manuals, docs/*.md"},
    });
}

} // namespace eb::cli
