#include "cli/emit.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <iostream>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/app.h"
#include "cli/errors.h"

namespace eb::cli {

namespace {

std::atomic<bool> g_stdout_gone{false};
std::atomic<bool> g_stdout_written{false};

// True when stdout is a pipe or socket whose reader has gone (`| head`).
bool stdout_reader_gone() {
    struct stat st {};
    if (fstat(STDOUT_FILENO, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) return false;
    pollfd p{STDOUT_FILENO, 0, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

} // namespace

Outputs plan_outputs(const std::string& format, const ExportPaths& exports, const std::string& json_alias,
                     report::Subject s) {
    Outputs o;
    o.to_stdout = stdout_exporter(format, s);
    o.files = plan_exports(exports, json_alias, s);
    return o;
}

namespace {
bool g_quiet = false;
}

void set_quiet(bool on) { g_quiet = on; }
bool quiet() { return g_quiet; }
void note(std::string_view line) {
    if (!g_quiet) fmt::print(stderr, "exitbench: {}\n", line);
}

bool stdout_written() { return g_stdout_written.load(); }

void write_stdout(std::string_view text) {
    if (g_stdout_gone.load()) return;
    if (!text.empty()) g_stdout_written.store(true);
    errno = 0;
    if (std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0) return;
    int e = errno;
    if (e == EPIPE || stdout_reader_gone()) {
        g_stdout_gone.store(true);
        return;
    }
    throw HostError(fmt::format("cannot write to stdout: {}", std::strerror(e ? e : EIO)));
}

// What was printed with fmt or iostreams is only known to have arrived once
// flushed. A reader that went away ends the command normally; any other
// failure (a full disk) is an error.
int finish_stdout(int rc) {
    errno = 0;
    bool ok = std::fflush(stdout) == 0 && !std::ferror(stdout) && !std::cout.bad();
    if (ok || g_stdout_gone.load() || stdout_reader_gone()) return rc;
    fmt::print(stderr, "exitbench: error: cannot write to stdout: {}\n", errno ? std::strerror(errno) : "I/O error");
    return rc == kOk ? kHost : rc;
}

} // namespace eb::cli
