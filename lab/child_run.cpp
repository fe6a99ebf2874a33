#include "lab/child_run.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fmt/format.h>
#include <sstream>
#include <sys/mman.h>
#include <unistd.h>

#include "result/json.h"
#include "sys/error.h"
#include "sys/process.h"

namespace eb::lab {

sys::Fd result_memfd(const std::string& name) {
    sys::Fd fd(::memfd_create(name.c_str(), MFD_CLOEXEC));
    if (!fd.valid()) throw HostError(fmt::format("cannot make a memfd for {}: {}", name, std::strerror(errno)));
    return fd;
}

std::pair<int, double> run_child(const std::string& exe, const std::vector<std::string>& words, int result,
                                 const std::atomic<bool>& interrupt) {
    sys::Spawn s{words, "/dev/null", "/dev/null", sys::kInherit};
    s.program = exe;
    s.fd3 = result;
    s.own_group = false;
    s.death_signal = SIGTERM;
    auto t0 = std::chrono::steady_clock::now();
    sys::ProcessEnd end = sys::Process(s).wait_out(interrupt);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return {end.status(), wall};
}

suite::RunReport read_result(int fd, const std::string& what) {
    std::string text;
    char buf[65536];
    for (off_t off = 0;;) {
        ssize_t n = ::pread(fd, buf, sizeof buf, off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        text.append(buf, size_t(n));
        off += n;
    }
    if (text.empty()) throw HostError(fmt::format("{} wrote no result", what));
    std::istringstream f(text);
    return result::from_json(result::parse_document(f, what + "'s result"));
}

} // namespace eb::lab
