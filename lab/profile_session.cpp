#include "lab/profile_session.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <numeric>
#include <charconv>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <unistd.h>

#include "sys/error.h"
#include "guest/abi.h"
#include "profile/analyze.h"
#include "profile/harness.h"

namespace eb::lab {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kTempPrefix = "exitbench-profile-";

// --profile's temporary traces are named exitbench-profile-PID-XXXXXX (and
// the writer's .exitbench-profile-PID-XXXXXX.XXXXXX). Those of processes that
// no longer run were left by SIGKILL: remove them.
void sweep_temp_traces(const fs::path& dir) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        std::string name = e.path().filename().string();
        std::string_view rest = name;
        if (!rest.empty() && rest[0] == '.') rest.remove_prefix(1);
        if (rest.substr(0, kTempPrefix.size()) != kTempPrefix) continue;
        rest.remove_prefix(kTempPrefix.size());
        int pid = 0;
        auto [end, err] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
        bool dash = err == std::errc() && end != rest.data() + rest.size() && *end == '-';
        if (!dash || pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH) continue;
        if (fs::remove(e.path(), ec))
            fmt::print(stderr, "exitbench: removed {}, left by process {} which no longer runs\n",
                       e.path().string(), pid);
    }
}

} // namespace

std::string make_temp_trace() {
    fs::path dir = fs::temp_directory_path();
    sweep_temp_traces(dir);
    std::string pat = (dir / fmt::format("{}{}-XXXXXX", kTempPrefix, getpid())).string();
    int fd = mkstemp(pat.data());
    if (fd < 0) throw HostError(fmt::format("--profile: cannot create a temporary trace file in {}: {}",
                                            dir.string(), std::strerror(errno)));
    close(fd);
    return pat;
}

namespace {

// What the attribution reads: exits, entries, and port I/O to tell the
// harness's exits apart. Nothing else is enabled, so the run slows less.
const std::vector<std::string> kAttributedTracepoints = {"kvm_exit", "kvm_entry", "kvm_pio"};

} // namespace

ProfileSession::ProfileSession(const vmm::HostFacts& host, const std::string& keep)
    : keep_(!keep.empty()), path_(keep_ ? keep : make_temp_trace()) {
    profile::RecordOptions o;
    o.pids = {getpid()};
    o.require_kvm = false;  // the VMs come later
    o.out = path_;
    o.isa = vmm::exit_isa(host.backend);
    o.backend = host.backend_module;
    o.cpu_model = host.cpu_model;
    // A kept trace is for 'profile report', which reads every event.
    if (!keep_) o.tracepoints = kAttributedTracepoints;
    try {
        rec_ = std::make_unique<profile::Recorder>(o);
        rec_->start();
    } catch (const std::exception& e) {
        rec_.reset();
        if (!keep_) unlink(path_.c_str());
        throw HostError(std::string("--profile: ") + e.what());
    }
    poller_ = std::thread([this] { poll(); });
}

ProfileSession::~ProfileSession() {
    stop_.store(true);
    if (poller_.joinable()) poller_.join();
    rec_.reset();
    if (!keep_) unlink(path_.c_str());
}

void ProfileSession::attribute(std::vector<suite::TestResult>& results) {
    stop_.store(true);
    poller_.join();
    if (!rec_) return;  // the poller failed and said so
    try {
        auto rr = rec_->finish();
        rec_.reset();  // the ftrace instance goes now, not at the end of the program
        attribute(results, profile::read_trace(path_), rr.lost);
    } catch (const std::exception& e) {
        rec_.reset();
        warn(e.what());
    }
}

void ProfileSession::nothing_to_attribute(std::vector<suite::TestResult>& results, const vmm::HostFacts& host) {
    suite::HostProfile hp;
    hp.note = fmt::format("{}: kvm_exit/kvm_entry never fire on this backend, so there is nothing to attribute; "
                          "nothing was recorded, the run was not slowed",
                          host.backend_module.empty() ? vmm::backend_name(host.backend) : host.backend_module);
    for (auto& t : results)
        if (suite::measured(t)) t.host_profile = hp;
}

void ProfileSession::poll() {
    try {
        while (!stop_.load()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            rec_->poll();
        }
    } catch (const std::exception& e) {
        // An exception must not escape a std::thread: that is std::terminate.
        rec_.reset();  // tracing off now, and the partial trace removed
        warn(e.what());
    }
}

void ProfileSession::warn(const char* why) const {
    fmt::print(stderr, "exitbench: warning: --profile stopped: {}; the results are kept without host-side "
                       "figures\n", why);
}

void ProfileSession::attribute(std::vector<suite::TestResult>& results, profile::TraceFile trace, uint64_t lost) {
    // Buffers drain CPU by CPU; the windows need time order.
    std::stable_sort(trace.events.begin(), trace.events.end(),
                     [](const auto& a, const auto& b) { return a.ts_ns < b.ts_ns; });
    for (auto& t : results) {
        if (!suite::measured(t)) continue;
        auto lo = std::lower_bound(trace.events.begin(), trace.events.end(), t.start_ns,
                                   [](const profile::Event& e, int64_t ns) { return int64_t(e.ts_ns) < ns; });
        auto hi = std::upper_bound(lo, trace.events.end(), t.end_ns,
                                   [](int64_t ns, const profile::Event& e) { return ns < int64_t(e.ts_ns); });
        auto split = profile::split_harness(std::span(lo, hi), abi::kUcallPort);
        auto rep = profile::analyze(split.test, trace.header.isa, {}, 0, trace.header.backend);
        suite::HostProfile hp;
        if (!rep.degraded.empty()) {
            hp.note = "no kvm_exit/kvm_entry on this host: no handling time (see 'profile report')";
        } else if (rep.rows.empty()) {
            hp.note = "no exits recorded in this test's window";
        } else {
            const auto& row = *std::max_element(rep.rows.begin(), rep.rows.end(),
                                                [](const auto& a, const auto& b) { return a.count < b.count; });
            hp = {row.name, row.count, t.all_iterations ? double(row.count) / double(t.all_iterations) : 0,
                  row.mean_ns, row.p50_ns, row.p99_ns, ""};
        }
        if (lost) hp.note += fmt::format("{}{} events were lost", hp.note.empty() ? "" : "; ", lost);
        hp.harness_exits = split.harness_exits;
        if (!split.harness_ns.empty())
            hp.harness_mean_ns = double(std::accumulate(split.harness_ns.begin(), split.harness_ns.end(), 0ull)) /
                                 double(split.harness_ns.size());
        t.host_profile = hp;
    }
}

} // namespace eb::lab
