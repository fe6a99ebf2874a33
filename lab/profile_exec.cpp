#include "lab/profile_exec.h"

#include <cerrno>
#include <csignal>
#include <signal.h>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/error.h"
#include "sys/fd.h"
#include "sys/io.h"
#include "vmm/host.h"

namespace eb::lab {

namespace {

// Found the way execvp will look, so a typo is a usage error before any
// tracing starts and no empty trace is left behind.
bool findable(const std::string& program) {
    if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');)
        if (::access(((dir.empty() ? "." : dir) + "/" + program).c_str(), X_OK) == 0) return true;
    return false;
}

struct Child {
    pid_t pid = -1;
    sys::Fd go;        // a byte lets the child exec; EOF makes it exit
    sys::Fd exec_err;  // the child's errno if exec failed; EOF once it succeeded
};

// Forks a child that waits for `go`, then execs the command with the default
// signal dispositions (exitbench ignores SIGPIPE; the command must not inherit that).
Child spawn_held(const std::vector<std::string>& command) {
    std::vector<char*> argv;
    for (const auto& w : command) argv.push_back(const_cast<char*>(w.c_str()));
    argv.push_back(nullptr);
    sys::Pipe go, err;
    try {
        go = sys::make_pipe();
        err = sys::make_pipe();
    } catch (const std::exception& e) {
        throw HostError(fmt::format("cannot create a pipe: {}", e.what()));
    }
    pid_t pid = ::fork();
    if (pid < 0) throw HostError(fmt::format("cannot start '{}': {}", command[0], std::strerror(errno)));
    if (pid == 0) {
        go.write.reset();
        err.read.reset();
        char c = 0;
        ssize_t n;
        while ((n = ::read(go.read.get(), &c, 1)) < 0 && errno == EINTR) {}
        if (n != 1) ::_exit(126);  // EOF: recording never started, so do not run the command
        for (int sig : {SIGPIPE, SIGXFSZ, SIGINT, SIGTERM, SIGHUP}) ::signal(sig, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::execvp(argv[0], argv.data());
        int e = errno;
        (void)!::write(err.write.get(), &e, sizeof e);
        ::_exit(127);
    }
    return {pid, std::move(go.write), std::move(err.read)};  // the child's ends close here
}

std::string describe(int status) {
    if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
    return "status unknown";
}

} // namespace

CommandRecording record_command(const std::vector<std::string>& command, profile::RecordOptions o,
                                const std::atomic<bool>& interrupt) {
    if (!findable(command[0])) throw InputError(fmt::format("cannot run '{}': command not found", command[0]));
    Child child = spawn_held(command);
    if (!o.all) o.pids = {child.pid};  // with -a: every process, until the command exits
    o.require_kvm = false;               // it opens its VM only after exec
    int status = 0, exec_errno = 0;
    bool exited = false;
    auto reap = [&](int flags) {
        if (!exited && ::waitpid(child.pid, &status, flags) == child.pid) exited = true;
        return exited;
    };
    profile::RecordHooks hooks;
    hooks.on_start = [&] {
        (void)!::write(child.go.get(), "g", 1);
        child.go.reset();
        if (::read(child.exec_err.get(), &exec_errno, sizeof exec_errno) != sizeof exec_errno) exec_errno = 0;
    };
    hooks.done = [&] { return exec_errno != 0 || reap(WNOHANG); };
    profile::RecordResult r;
    try {
        r = profile::record(o, interrupt, hooks);
    } catch (const std::exception& e) {
        if (child.go.valid()) child.go.reset();  // never started: it exits at EOF
        else ::kill(child.pid, SIGTERM);
        reap(0);
        throw HostError(e.what());
    }
    child.exec_err.reset();
    if (!exited) ::kill(child.pid, SIGTERM);  // we were stopped: so is the command
    reap(0);
    if (exec_errno) throw HostError(fmt::format("cannot run '{}': {}", command[0], std::strerror(exec_errno)));
    return {r, describe(status)};
}

void stamp_host(profile::RecordOptions& o) {
    auto host = vmm::probe_host(std::nullopt);
    o.isa = vmm::exit_isa(host.backend);
    o.backend = host.backend_module;
    o.cpu_model = host.cpu_model;
}

} // namespace eb::lab
