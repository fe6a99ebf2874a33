// Child processes and scratch directories for the use cases that drive other
// programs (QEMU, ldd, xz): each child runs in its own process group, so a
// timeout or an interrupt ends it and everything it started, and nothing is
// left behind when the caller returns.
#pragma once
#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace eb::sys {

struct Spawn {
    std::vector<std::string> argv;  // argv[0] is looked up in PATH
    std::string stdin_path = "/dev/null";
    std::string stdout_path = "/dev/null";  // truncated and written
    std::string stderr_path = "/dev/null";
    std::string cwd = {};  // the child's working directory; empty: the caller's
};

struct ProcessEnd {
    bool timed_out = false;    // killed after `timeout_s`
    bool interrupted = false;  // killed because `interrupt` was set
    int code = -1;             // exit status when it exited; -1 when a signal ended it
    int signal = 0;            // the signal that ended it, or 0
    bool ok() const { return !timed_out && !interrupted && code == 0; }
};

// Runs `s` to its end, polling `interrupt` (may be null) and the timeout
// (0: none) every 50 ms; either kills its process group (SIGTERM, then
// SIGKILL after 2 s). Throws HostError when it cannot start: exec failure
// shows as exit status 127, like a shell's.
ProcessEnd run_process(const Spawn& s, double timeout_s, const std::atomic<bool>* interrupt);

// The program's stdout when it exits 0; HostError naming it otherwise.
std::string capture(const std::vector<std::string>& argv, double timeout_s = 60);

// `name` found in PATH (or as given, when it has a slash), executable.
std::optional<std::string> find_program(const std::string& name);

// A private directory (mkdtemp under TMPDIR), removed with its contents on
// destruction.
class ScratchDir {
public:
    explicit ScratchDir(const std::string& prefix);
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

} // namespace eb::sys
