// Child processes and scratch directories for the use cases that drive other
// programs (QEMU, kexec, perf, ldd, xz, exitbench itself): the one way the
// project starts a process. argv, never a shell. By default each child runs in
// its own process group, so a timeout or an interrupt ends it and everything it
// started, and nothing is left behind when the caller returns.
#pragma once
#include <atomic>
#include <csignal>
#include <cstdint>
#include <optional>
#include <sys/types.h>
#include <string>
#include <vector>

namespace eb::sys {

inline const std::string kInherit = "-";  // as a Spawn path: the caller's own stream

struct Spawn {
    std::vector<std::string> argv;  // argv[0] is looked up in PATH
    std::string stdin_path = "/dev/null";
    std::string stdout_path = "/dev/null";  // truncated and written
    std::string stderr_path = "/dev/null";
    std::string cwd = {};  // the child's working directory; empty: the caller's
    std::string program = {};  // what is exec'd, argv[0] kept as given; empty: argv[0] in PATH
    int fd3 = -1;          // given to the child as its fd 3 (a result channel); -1: none
    // false: it stays in the caller's group, so a terminal's Ctrl-C reaches
    // it as it reaches the caller (a profiled command, a calibration run).
    bool own_group = true;
    int death_signal = SIGKILL;  // what it gets when the caller dies
    bool held = false;           // it waits for Process::release() before exec
};

struct ProcessEnd {
    bool timed_out = false;    // killed after `timeout_s`
    bool interrupted = false;  // killed because `interrupt` was set
    int code = -1;             // exit status when it exited; -1 when a signal ended it
    int signal = 0;            // the signal that ended it, or 0
    uint64_t peak_rss_kb = 0;  // its largest resident set (wait4's ru_maxrss)
    bool ok() const { return !timed_out && !interrupted && code == 0; }
    int status() const { return signal ? 128 + signal : code; }  // as a shell's $? says it
};

// One started child. Destroying it ends it (its group, when it has one) and
// reaps it, so an exception never leaves a process behind.
class Process {
public:
    explicit Process(const Spawn& s);  // HostError when it cannot fork
    ~Process();
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;

    pid_t pid() const { return pid_; }
    // A held child execs now. Returns exec's errno, 0 once exec succeeded.
    int release();
    std::optional<ProcessEnd> poll();  // its end once it has ended; never blocks
    // Waits for its end, polling `interrupt` (may be null) and the timeout
    // (0: none) every 1 to 20 ms; either ends it (SIGTERM, SIGKILL after 2 s).
    // With neither, it blocks in waitpid.
    ProcessEnd wait(double timeout_s, const std::atomic<bool>* interrupt);
    ProcessEnd terminate();  // ends it now, as a timeout would
    // Sends `sig` (to its group, when it has one) and lets it end its own way:
    // for a child that must clean up after itself, however long that takes.
    void signal(int sig);
    // Waits for its end however long it takes, passing `sig` on once when
    // `interrupt` is set: for a child that stops in order and cleans up.
    ProcessEnd wait_out(const std::atomic<bool>& interrupt, int sig = SIGTERM);

private:
    ProcessEnd finish(int status);
    pid_t reap(int& status, int flags);  // wait4, keeping the child's peak memory
    pid_t pid_ = -1;
    uint64_t peak_rss_kb_ = 0;
    bool own_group_ = true;
    int go_ = -1;        // held: a byte lets it exec, EOF makes it exit 126
    int exec_err_ = -1;  // held: exec's errno, or EOF once exec succeeded
    std::optional<ProcessEnd> end_;
};

// Runs `s` to its end, as Process::wait does (a timeout or an interrupt ends
// it and its group: SIGTERM, then SIGKILL after 2 s). Throws HostError when
// it cannot start: exec failure shows as exit status 127, like a shell's.
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
