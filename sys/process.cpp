#include "sys/process.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
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
[[noreturn]] void exec_child(const Spawn& s, char* const* argv, pid_t parent, const int (&go)[2],
                             const int (&exec_err)[2]) {
    // The parent's ends: a go pipe still open here would never see EOF.
    if (go[1] >= 0) close(go[1]);
    if (exec_err[0] >= 0) close(exec_err[0]);
    // Its own group keeps a terminal's Ctrl-C away from it; should exitbench
    // die without ending it (a second Ctrl-C, SIGKILL), it gets death_signal.
    if (s.own_group) setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, s.death_signal);
    if (getppid() != parent) _exit(126);
    if (go[0] >= 0) {
        char c = 0;
        ssize_t n;
        while ((n = read(go[0], &c, 1)) < 0 && errno == EINTR) {}
        if (n != 1) _exit(126);  // EOF: the caller gave up before it began
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ}) signal(sig, SIG_DFL);
    auto redirect = [](const std::string& path, int flags, int to) {
        if (path == kInherit) return true;
        int fd = open(path.c_str(), flags | O_CLOEXEC, 0600);
        return fd >= 0 && dup2(fd, to) >= 0;
    };
    if (!redirect(s.stdin_path, O_RDONLY, 0) || !redirect(s.stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 1) ||
        !redirect(s.stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 2))
        _exit(126);
    // dup2 onto itself keeps close-on-exec: cleared by hand when it is fd 3 already.
    if (s.fd3 >= 0 && (s.fd3 == 3 ? fcntl(3, F_SETFD, 0) < 0 : dup2(s.fd3, 3) < 0)) _exit(126);
    if (!s.cwd.empty() && chdir(s.cwd.c_str()) != 0) _exit(126);
    execvp(s.program.empty() ? argv[0] : s.program.c_str(), argv);
    int e = errno;
    if (exec_err[1] >= 0) (void)!write(exec_err[1], &e, sizeof e);
    _exit(127);
}

void close_fd(int& fd) {
    if (fd >= 0) close(fd);
    fd = -1;
}

} // namespace

Process::Process(const Spawn& s) : own_group_(s.own_group) {
    if (s.argv.empty()) throw std::invalid_argument("Process: no argv");
    std::vector<std::string> words = s.argv;
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    int go[2] = {-1, -1}, err[2] = {-1, -1};
    // Held only: the go byte, and exec's errno for release() to return.
    if (s.held && (pipe2(go, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)) {
        int e = errno;
        for (int fd : {go[0], go[1], err[0], err[1]}) if (fd >= 0) close(fd);
        throw HostError(std::string("cannot create a pipe for ") + s.argv[0] + ": " + std::strerror(e));
    }
    pid_t self = getpid();
    pid_ = fork();
    if (pid_ == 0) exec_child(s, argv.data(), self, go, err);
    int e = errno;
    for (int fd : {go[0], err[1]}) if (fd >= 0) close(fd);
    go_ = go[1];
    exec_err_ = err[0];
    if (pid_ < 0) {
        close_fd(go_);
        close_fd(exec_err_);
        throw HostError(std::string("cannot start ") + s.argv[0] + ": " + std::strerror(e));
    }
    if (own_group_) setpgid(pid_, pid_);  // both sides set it: no window where a kill misses the group
}

Process::~Process() {
    if (pid_ > 0 && !end_) {
        if (go_ >= 0) {  // never released: it exits at EOF, and is reaped
            close_fd(go_);
            wait(5, nullptr);
        } else {
            terminate();
        }
    }
    close_fd(go_);
    close_fd(exec_err_);
}

int Process::release() {
    if (go_ < 0) return 0;
    (void)!write(go_, "g", 1);
    close_fd(go_);
    int e = 0;
    ssize_t n;
    while ((n = read(exec_err_, &e, sizeof e)) < 0 && errno == EINTR) {}
    close_fd(exec_err_);
    return n == sizeof e ? e : 0;
}

pid_t Process::reap(int& status, int flags) {
    struct rusage ru {};
    pid_t r = wait4(pid_, &status, flags, &ru);
    if (r == pid_) peak_rss_kb_ = uint64_t(ru.ru_maxrss);
    return r;
}

ProcessEnd Process::finish(int status) {
    if (own_group_) kill(-pid_, SIGKILL);  // whatever the child left in its group
    ProcessEnd end;
    end.peak_rss_kb = peak_rss_kb_;
    if (WIFEXITED(status)) end.code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) end.signal = WTERMSIG(status);
    end_ = end;
    return end;
}

std::optional<ProcessEnd> Process::poll() {
    if (end_) return end_;
    int status = 0;
    pid_t r = reap(status, WNOHANG);
    if (r == pid_) return finish(status);
    if (r < 0 && errno != EINTR) throw HostError(std::string("waitpid: ") + std::strerror(errno));
    return std::nullopt;
}

void Process::signal(int sig) {
    if (!end_) kill(own_group_ ? -pid_ : pid_, sig);
}

ProcessEnd Process::wait_out(const std::atomic<bool>& interrupt, int sig) {
    bool passed_on = false;
    for (long ms = 1;; ms = std::min(ms * 2, 20L)) {
        if (auto end = poll()) return *end;
        if (interrupt.load() && !passed_on) {
            signal(sig);
            passed_on = true;
        }
        sleep_ms(ms);
    }
}

ProcessEnd Process::terminate() {
    if (end_) return *end_;
    pid_t target = own_group_ ? -pid_ : pid_;
    kill(target, SIGTERM);
    int status = 0;
    for (int i = 0; i < 100; ++i) {
        if (reap(status, WNOHANG) == pid_) return finish(status);
        sleep_ms(20);
    }
    kill(target, SIGKILL);
    while (reap(status, 0) < 0 && errno == EINTR) {}
    return finish(status);
}

ProcessEnd Process::wait(double timeout_s, const std::atomic<bool>* interrupt) {
    if (timeout_s <= 0 && !interrupt && !end_) {  // nothing to watch: block, so its end is seen at once
        int status = 0;
        pid_t r;
        while ((r = reap(status, 0)) < 0 && errno == EINTR) {}
        if (r == pid_) return finish(status);
        throw HostError(std::string("waitpid: ") + std::strerror(errno));
    }
    double deadline = timeout_s > 0 ? now_s() + timeout_s : 0;
    // 1 ms, doubling to 20: a short child is not charged a whole poll.
    for (long ms = 1;; ms = std::min(ms * 2, 20L)) {
        if (auto end = poll()) return *end;
        bool interrupted = interrupt && interrupt->load();
        bool timed_out = !interrupted && deadline > 0 && now_s() > deadline;
        if (interrupted || timed_out) {
            ProcessEnd end = terminate();
            end.interrupted = interrupted;
            end.timed_out = timed_out;
            end_ = end;
            return end;
        }
        sleep_ms(ms);
    }
}

ProcessEnd run_process(const Spawn& s, double timeout_s, const std::atomic<bool>* interrupt) {
    if (s.argv.empty()) throw std::invalid_argument("run_process: no argv");
    Process p(s);
    return p.wait(timeout_s, interrupt);
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
