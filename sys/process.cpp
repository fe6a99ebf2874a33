#include "sys/process.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/error.h"
#include "sys/io.h"

namespace eb::sys {

namespace {

double now_s() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

void sleep_ms(long ms) {
    timespec t{ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

// In the child: only async-signal-safe calls until exec.
[[noreturn]] void exec_child(const Spawn& s, char* const* argv, pid_t parent) {
    setpgid(0, 0);
    // Its own group keeps a terminal's Ctrl-C away from it; should exitbench
    // die without killing it (a second Ctrl-C, SIGKILL), it dies too.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(126);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ}) signal(sig, SIG_DFL);
    int in = open(s.stdin_path.c_str(), O_RDONLY | O_CLOEXEC);
    int out = open(s.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int err = open(s.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (!s.cwd.empty() && chdir(s.cwd.c_str()) != 0) _exit(126);
    if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(126);
    execvp(argv[0], argv);
    _exit(127);
}

// Ends the group: SIGTERM, then SIGKILL when it has not gone after 2 s.
int kill_group(pid_t pid) {
    kill(-pid, SIGTERM);
    int status = 0;
    for (int i = 0; i < 40; ++i) {
        if (waitpid(pid, &status, WNOHANG) == pid) return status;
        sleep_ms(50);
    }
    kill(-pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return status;
}

} // namespace

ProcessEnd run_process(const Spawn& s, double timeout_s, const std::atomic<bool>* interrupt) {
    if (s.argv.empty()) throw std::invalid_argument("run_process: no argv");
    std::vector<std::string> words = s.argv;
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    pid_t self = getpid();
    pid_t pid = fork();
    if (pid < 0) throw HostError(std::string("cannot start ") + s.argv[0] + ": " + std::strerror(errno));
    if (pid == 0) exec_child(s, argv.data(), self);
    setpgid(pid, pid);  // both sides set it: no window where a kill misses the group
    ProcessEnd end;
    double deadline = timeout_s > 0 ? now_s() + timeout_s : 0;
    int status = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) throw HostError(std::string("waitpid: ") + std::strerror(errno));
        end.interrupted = interrupt && interrupt->load();
        end.timed_out = !end.interrupted && deadline > 0 && now_s() > deadline;
        if (end.interrupted || end.timed_out) {
            status = kill_group(pid);
            break;
        }
        sleep_ms(50);
    }
    kill(-pid, SIGKILL);  // whatever the child left in its group
    if (WIFEXITED(status)) end.code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) end.signal = WTERMSIG(status);
    return end;
}

std::string capture(const std::vector<std::string>& argv, double timeout_s) {
    ScratchDir dir("exitbench-capture");
    Spawn s{argv, "/dev/null", dir.file("out"), dir.file("err")};
    auto end = run_process(s, timeout_s, nullptr);
    if (!end.ok()) {
        std::string err = read_regular(dir.file("err"));
        if (auto nl = err.find('\n'); nl != std::string::npos) err.resize(nl);
        throw HostError(argv[0] + (end.timed_out ? std::string(" timed out") : " failed") +
                        (err.empty() ? "" : ": " + err));
    }
    return read_regular(dir.file("out"));
}

std::optional<std::string> find_program(const std::string& name) {
    auto executable = [](const std::string& p) {
        struct stat st {};
        return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
    };
    if (name.find('/') != std::string::npos) return executable(name) ? std::optional(name) : std::nullopt;
    const char* path = std::getenv("PATH");
    std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
    size_t pos = 0;
    while (pos <= dirs.size()) {
        size_t colon = dirs.find(':', pos);
        std::string d = dirs.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
        if (!d.empty() && executable(d + "/" + name)) return d + "/" + name;
        if (colon == std::string::npos) break;
        pos = colon + 1;
    }
    return std::nullopt;
}

ScratchDir::ScratchDir(const std::string& prefix) {
    std::error_code ec;
    auto base = std::filesystem::temp_directory_path(ec);
    std::string tmpl = (ec ? std::string("/tmp") : base.string()) + "/" + prefix + ".XXXXXX";
    if (!mkdtemp(tmpl.data())) throw HostError("cannot make a directory under " + base.string() + ": " +
                                               std::strerror(errno));
    path_ = tmpl;
}

ScratchDir::~ScratchDir() {
    std::error_code ec;  // a destructor must not throw; a leftover is all that can go wrong
    std::filesystem::remove_all(path_, ec);
}

} // namespace eb::sys
