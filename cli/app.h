#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace eb::cli {
// Exit codes: 0 all good, 1 a test failed (or compare's gate found a
// regression), 2 bad usage or input, 3 the host cannot run exitbench, 4
// compare's gate found no regression but a test was not testable, 5 the
// results could not be saved to the history (kept in a file, named), 70
// an internal error (a bug: sysexits' EX_SOFTWARE), 130 interrupted.
enum Exit {
    kOk = 0, kTestFailed = 1, kUsage = 2, kHost = 3, kNotTestable = 4, kNotSaved = 5, kInternal = 70,
    kInterrupted = 130
};
// git bisect run's codes: good, bad, cannot test this commit, stop bisecting.
enum BisectExit { kBisectGood = 0, kBisectBad = 1, kBisectSkip = 125, kBisectAbort = 128 };
int main(int argc, char** argv);
// For tests: parses `args` (without the program name) as main() would,
// running nothing; kOk when a command would run, else the usage exit code.
int parse_only(const std::vector<std::string>& args);
// For tests: runs `command` as main() runs a command, its exceptions mapped
// to one line and an exit code (UsageError and InputError 2, HostError 3,
// anything else an internal error, 70).
int run_guarded(const std::function<int()>& command);
// For tests and generated help: calls f on every command, the root first.
void visit_commands(const std::function<void(const CLI::App&)>& f);
}
