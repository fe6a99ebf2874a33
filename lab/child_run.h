// A `run` of this binary as a child process, with its result read back from
// a memfd given to it as fd 3 (named /proc/self/fd/3 on its command line):
// the run level is a process, and a child that is killed leaves no file in
// TMPDIR (SIGKILL runs no destructor). calibrate and the module A/B use it.
#pragma once
#include <atomic>
#include <string>
#include <vector>

#include "suite/result.h"
#include "sys/fd.h"

namespace eb::lab {

// A memfd for one child's result, named `name` in /proc/PID/fd.
sys::Fd result_memfd(const std::string& name);

// Runs `words` (argv, "exitbench" first) as `exe` with stdout on /dev/null
// (the table is not wanted; stderr stays the user's) and `result` as its fd
// 3. It stays in the caller's group, so a terminal's Ctrl-C reaches it too;
// it gets SIGTERM if the caller dies, and a stop request is passed on to it
// once, then it is waited out: it removes its own tracing on SIGTERM, which
// a SIGKILL would leave behind. Returns its exit status and wall seconds.
std::pair<int, double> run_child(const std::string& exe, const std::vector<std::string>& words, int result,
                                 const std::atomic<bool>& interrupt);

// The result a child wrote to `fd`; HostError (naming `what`) when it wrote none.
suite::RunReport read_result(int fd, const std::string& what);

} // namespace eb::lab
