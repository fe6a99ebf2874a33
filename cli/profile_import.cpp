#include "cli/profile_import.h"

#include <cerrno>
#include <cstdio>
#include <memory>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <spawn.h>
#include <system_error>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "cli/app.h"
#include "cli/emit.h"
#include "cli/errors.h"
#include "sys/io.h"
#include "cli/run.h"
#include "profile/perf_script.h"
#include "profile/trace_file.h"
#include "report/sanitize.h"

extern char** environ;

namespace eb::cli {

namespace {

// perf script's output above this is not held in memory.
constexpr size_t kMaxScriptBytes = size_t(2) << 30;

bool perf_installed() {
    const char* path = std::getenv("PATH");
    std::string_view p = path ? path : "/usr/bin:/bin";
    for (size_t at = 0; at <= p.size();) {
        size_t c = std::min(p.find(':', at), p.size());
        auto dir = std::string(p.substr(at, c - at));
        if (!dir.empty() && ::access((dir + "/perf").c_str(), X_OK) == 0) return true;
        at = c + 1;
    }
    return false;
}

// A file name as a command-line argument: "-" (or "-x") would be read as
// stdin or an option, "./-" is the file.
std::string path_arg(const std::string& file) { return file.starts_with("-") ? "./" + file : file; }

// `perf script -i FILE ARGS...`'s stdout; its stderr goes to ours.
std::string perf_script(const std::string& file) {
    std::vector<std::string> args = {"perf", "script", "-i", path_arg(file)};
    for (const char* a : profile::kPerfScriptArgs) args.emplace_back(a);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    sys::Pipe pipe;
    try {
        pipe = sys::make_pipe();
    } catch (const std::system_error& e) {
        throw HostError(e.what());
    }
    // perf's own complaint goes into the one-line error, not to our stderr as more lines.
    std::FILE* err = std::tmpfile();
    if (!err) throw HostError(fmt::format("cannot make a temporary file for perf's errors: {}", std::strerror(errno)));
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> err_file(err, std::fclose);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pipe.write.get(), 1);
    posix_spawn_file_actions_adddup2(&fa, fileno(err), 2);
    pid_t pid = 0;
    int rc = posix_spawnp(&pid, "perf", &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    pipe.write.reset();
    if (rc != 0) throw HostError(fmt::format("cannot run perf: {}", std::strerror(rc)));
    std::string out;
    char buf[65536];
    bool too_big = false;
    for (ssize_t n; (n = ::read(pipe.read.get(), buf, sizeof buf)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        if (out.size() + size_t(n) > kMaxScriptBytes) {
            too_big = true;
            break;
        }
        out.append(buf, size_t(n));
    }
    pipe.read.reset();  // a perf still writing gets SIGPIPE
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    // The size first: cut off, perf dies of SIGPIPE, which is not the reason.
    if (too_big) throw UsageError(fmt::format("{}: perf script printed over {} GiB", file, kMaxScriptBytes >> 30));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char said[200] = {};
        std::rewind(err);
        if (!std::fgets(said, sizeof said, err)) said[0] = '\0';
        std::string why(said, strcspn(said, "\n"));
        throw UsageError(fmt::format("{}: perf script failed (exit {}{}): not a perf.data it can read", file,
                                     WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
                                     why.empty() ? "" : ": " + why));
    }
    return out;
}

} // namespace

int profile_import(const std::string& perf_data, const std::string& out) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(perf_data, ec))
        throw UsageError(fmt::format("cannot read {}: no such regular file", perf_data));
    char magic[8] = {};
    std::ifstream(perf_data, std::ios::binary).read(magic, 8);
    if (std::memcmp(magic, "PERFILE2", 8) != 0)
        throw UsageError(fmt::format("{}: not a perf.data file (no PERFILE2 magic)", perf_data));
    if (!perf_installed()) throw HostError("perf is not installed: apt-get install linux-perf");
    require_writable(out);
    profile::PerfScript s;
    try {
        s = profile::parse_perf_script(perf_script(perf_data));
    } catch (const profile::PerfScriptError& e) {
        throw UsageError(fmt::format("{}: perf script output: {}", perf_data, e.what()));
    }
    s.trace.header.cpu_model = "unknown (imported from perf.data)";
    s.trace.header.backend = s.trace.header.isa == "svm" ? "kvm_amd" : s.trace.header.isa == "vmx" ? "kvm_intel" : "";
    {
        profile::TraceWriter w(out, s.trace.header);
        for (const auto& e : s.trace.events) w.add(e);
        w.finish();
    }
    std::string msg = report::printable(fmt::format("converted {} into {}: {} events, exit reasons {}", perf_data,
                                                    out, s.trace.events.size(), s.trace.header.isa));
    for (const auto& [tp, n] : s.skipped) msg += fmt::format("; left out {} kvm:{} events", n, report::printable(tp));
    write_stdout(msg + "\n");
    return kOk;
}

} // namespace eb::cli
