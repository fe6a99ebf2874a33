#include "cli_runner.h"
#include "tests/temp_dir.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <poll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include "tests/paths.h"

extern char** environ;

namespace {

// The state letter of /proc/PID/stat ('T' stopped, 'Z' gone), or 0.
char proc_state(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(f, line);
    auto at = line.rfind(')');
    return at == std::string::npos || at + 2 >= line.size() ? 0 : line[at + 2];
}

// Stops `pid` (SIGSTOP) and waits until it is stopped: true, or it had ended first.
bool stop_alive(pid_t pid) {
    if (kill(pid, SIGSTOP) != 0) return false;
    for (int i = 0; i < 2000; ++i) {
        char st = proc_state(pid);
        if (st == 'T' || st == 't') return true;
        if (st == 'Z' || st == 0) return false;
        usleep(1000);
    }
    return false;
}

} // namespace

CliResult run_cli(const std::vector<std::string>& args, const CliOptions& opt) {
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) throw std::runtime_error("pipe");
    std::vector<std::string> argv = opt.wrap;
    argv.push_back(eb::test::exitbench_binary());
    argv.insert(argv.end(), args.begin(), args.end());
    // Runs save to a history store by default: keep it in this test's scratch
    // directory, never the user's (a test's own env or --db wins).
    std::string xdg = "XDG_DATA_HOME=" + temp_path("xdg-data");
    pid_t pid = fork();
    if (pid == 0) {
        if (!opt.stdout_file.empty()) {
            int fd = open(opt.stdout_file.c_str(), O_WRONLY);
            if (fd < 0) _exit(126);
            dup2(fd, 1);
        } else {
            dup2(out[1], 1);
        }
        dup2(err[1], 2);
        putenv(xdg.data());
        for (const auto& e : opt.env) putenv(const_cast<char*>(e.c_str()));
        std::vector<char*> cargv;
        for (auto& a : argv) cargv.push_back(a.data());
        cargv.push_back(nullptr);
        execvp(cargv[0], cargv.data());
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    CliResult r;
    r.pid = pid;
    if (opt.close_stdout) {
        close(out[0]);
        out[0] = -1;
    }
    auto start = std::chrono::steady_clock::now();
    bool sent_int = false;
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int open_fds = out[0] < 0 ? 1 : 2;
    while (open_fds > 0) {
        double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        bool marked = opt.wait_for.empty() || r.err.find(opt.wait_for) != std::string::npos ||
                      r.out.find(opt.wait_for) != std::string::npos;
        bool due = marked && !sent_int &&
                   (opt.signal_when ? opt.signal_when(pid)
                                    : opt.sigint_after_s >= 0 ? el >= opt.sigint_after_s : !opt.wait_for.empty());
        if (due && opt.freeze) {
            sent_int = true;
            if (stop_alive(pid)) {
                r.mid_work = true;
                kill(pid, opt.signal);
                if (opt.second_signal) kill(pid, opt.second_signal);
                kill(pid, SIGCONT);
            }
        } else if (due) {
            if (opt.signal) kill(pid, opt.signal);
            if (opt.second_signal) kill(pid, opt.second_signal);
            sent_int = true;
        }
        if (el > opt.timeout_s && !r.timed_out) {
            kill(pid, SIGKILL);
            r.timed_out = true;
        }
        // A signal still to send is looked for every millisecond: a quick command is caught mid-work.
        bool pending = !sent_int && (opt.signal_when || opt.sigint_after_s >= 0 || !opt.wait_for.empty());
        if (poll(fds, 2, pending ? 1 : 50) <= 0) continue;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
            char buf[4096];
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
            } else {
                (i ? r.err : r.out).append(buf, n);
            }
        }
    }
    int st = 0;
    waitpid(pid, &st, 0);
    r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r.term_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    if (r.timed_out) {  // a hang: said in what every failure message prints
        std::string cmd;
        for (const auto& a : args) cmd += " " + a;
        r.err += "\n[test runner: killed after " + std::to_string(int(opt.timeout_s)) + " s, no end: exitbench" +
                 cmd.substr(0, 300) + "]\n";
    }
    return r;
}

bool have_kvm() { return access("/dev/kvm", F_OK) == 0; }

bool have_tool(const char* tool) {
    return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0;
}

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

std::string kut_fixture(const std::string& name) { return eb::test::fixtures_dir() + "/kut/" + name; }

bool null_device_intact(const std::string& path) {
    struct stat st {};
    bool ok = ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
    if (!ok && geteuid() == 0) {
        ::unlink(path.c_str());
        ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 3));
        ::chmod(path.c_str(), 0666);
    }
    return ok;
}

bool catches(int pid, int sig) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("SigCgt:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1)) & 1;
    return false;
}

std::string temp_path(const std::string& name) {
    // One directory per test process (ctest runs each test in its own),
    // removed when the process exits.
    static const eb::test::TempDir dir;
    return dir.path(name);
}

TempDir::TempDir() {
    std::string pat = (std::filesystem::temp_directory_path() / "eb_it_XXXXXX").string();
    if (!mkdtemp(pat.data())) throw std::runtime_error("mkdtemp");
    path = pat;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
}

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}
