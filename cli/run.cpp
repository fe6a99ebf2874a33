#include "cli/run.h"
#include "cli/progress.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <ctime>
#include <fstream>
#include <random>
#include <thread>
#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include "cli/errors.h"
#include "cli/parse.h"
#include "profile/analyze.h"
#include "profile/record.h"
#include "cli/suggest.h"
#include "env/host_env.h"
#include "guest/abi.h"
#include "report/exporter.h"
#include "report/file.h"
#include "suite/registry.h"
#include "suite/runner.h"
#include "vmm/boot.h"
#include "vmm/image.h"
#include "vmm/machine.h"

#ifndef EB_VERSION
#define EB_VERSION "dev"
#endif
#ifndef EB_GIT_DESCRIBE
#define EB_GIT_DESCRIBE ""
#endif

namespace eb::cli {

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

// --profile: records our own process's kvm tracepoints on a thread while the
// tests run, then gives each test the host-side figures of its time window.
// A recording failure never costs the results: profiling stops with a warning.
class ProfileSession {
public:
    ProfileSession(const vmm::HostFacts& host, const std::string& keep)
        : keep_(!keep.empty()), path_(keep_ ? keep : make_temp_trace()) {
        profile::RecordOptions o;
        o.pids = {getpid()};
        o.require_kvm = false;  // the VMs come later
        o.out = path_;
        o.isa = vmm::exit_isa(host.backend);
        o.backend = host.backend_module;
        o.cpu_model = host.cpu_model;
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
    ~ProfileSession() {
        stop_.store(true);
        if (poller_.joinable()) poller_.join();
        rec_.reset();
        if (!keep_) unlink(path_.c_str());
    }

    void attribute(std::vector<suite::TestResult>& results) {
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

private:
    void poll() {
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

    void warn(const char* why) const {
        fmt::print(stderr, "exitbench: warning: --profile stopped: {}; the results are kept without host-side "
                           "figures\n", why);
    }

    static void attribute(std::vector<suite::TestResult>& results, profile::TraceFile trace, uint64_t lost) {
        // Buffers drain CPU by CPU; the windows need time order.
        std::stable_sort(trace.events.begin(), trace.events.end(),
                         [](const auto& a, const auto& b) { return a.ts_ns < b.ts_ns; });
        for (auto& t : results) {
            if (!suite::measured(t)) continue;
            auto lo = std::lower_bound(trace.events.begin(), trace.events.end(), t.start_ns,
                                       [](const profile::Event& e, int64_t ns) { return int64_t(e.ts_ns) < ns; });
            auto hi = std::upper_bound(lo, trace.events.end(), t.end_ns,
                                       [](int64_t ns, const profile::Event& e) { return ns < int64_t(e.ts_ns); });
            auto rep = profile::analyze(std::span(lo, hi), trace.header.isa, {}, 0, trace.header.backend);
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
            t.host_profile = hp;
        }
    }

    bool keep_;
    std::string path_;
    std::unique_ptr<profile::Recorder> rec_;
    std::thread poller_;
    std::atomic<bool> stop_{false};
};

std::vector<const suite::TestSpec*> select_tests(const std::vector<std::string>& names,
                                                 bool with_baseline) {
    std::vector<const suite::TestSpec*> picked;
    const auto& reg = suite::registry();
    if (names.empty()) {
        for (const auto& t : reg)
            if (!t.internal) picked.push_back(&t);
        return picked;
    }
    std::vector<std::string> known;
    for (const auto& t : reg) {
        known.push_back(t.name);
        known.insert(known.end(), t.aliases.begin(), t.aliases.end());
    }
    for (const auto& n : names) {
        const auto* t = suite::find_test(n);
        if (!t) {
            auto s = suggest(n, known);
            throw UsageError(fmt::format("unknown test '{}'{}; 'exitbench list --all' shows them", n,
                                         s ? fmt::format(" (did you mean '{}'?)", *s) : ""));
        }
        if (std::find(picked.begin(), picked.end(), t) == picked.end()) picked.push_back(t);
    }
    if (with_baseline) {
        const auto* b = suite::find_test("baseline");
        if (std::find(picked.begin(), picked.end(), b) == picked.end()) picked.push_back(b);
    }
    // Registry order, whatever order the names came in.
    std::sort(picked.begin(), picked.end(), [&](auto* a, auto* b) { return a < b; });
    return picked;
}

void check_cpu(const char* opt, int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &set)))
        throw UsageError(fmt::format("{} {}: this process may not run on host CPU {}", opt, cpu, cpu));
}

} // namespace

suite::Provenance capture_provenance(const std::vector<std::string>& argv) {
    suite::Provenance p;
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    p.timestamp_utc = stamp;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) p.hostname = host;
    p.argv = argv;
    p.git_describe = EB_GIT_DESCRIBE;
    std::ifstream f("/proc/sys/kernel/random/boot_id");
    std::getline(f, p.boot_id);  // stays empty where /proc does not say
    return p;
}

kvm::System open_kvm(const std::string& device) {
    try {
        auto sys = kvm::System::open(device);
        vmm::check_host(sys);
        return sys;
    } catch (const std::exception& e) {
        throw HostError(e.what());
    }
}


void add_run_options(CLI::App& run, RunArgs& ra) {
    run.add_option("tests", ra.tests, "test names (see 'list')");
    run.add_option("-n,--iterations", ra.iterations, "fixed iterations per batch (default: adaptive)");
    run.add_option("-r,--repeats", ra.repeats, fmt::format("measured batches per test and session (default {})",
                                                           kDefaultRepeats));
    run.add_option("--sessions", ra.sessions,
                   fmt::format("run every test in N fresh VMs, shuffled across tests; with N >= 2 the interval "
                               "describes run-to-run reproducibility (default {})", kDefaultSessions));
    run.add_option("--time-goal", ra.time_goal, "adaptive batch duration, e.g. 20ms (default)");
    run.add_option("--warmup", ra.warmup, "N more discarded batches of the final size (default 0): warm-up is "
                                          "already automatic, batches double until one takes --time-goal and "
                                          "that one is discarded too");
    run.add_option("--cpu", ra.cpu, "pin vCPU 0's thread to this host CPU");
    run.add_option("--smp", ra.smp, "vCPUs per VM (default 1; tests that need more get their minimum)");
    run.add_option("--pin", ra.pin, "host CPU per vCPU, e.g. 0,1 or 2-5, or 'auto'");
    run.add_option("--apic", ra.apic, "APIC mode: auto (x2APIC when offered, as KUT), xapic, x2apic");
    run.add_option("--json", ra.json, "write the full result as JSON to FILE (the old name of --export-json)");
    run.add_option("--format", ra.format, fmt::format("stdout format: {} (default table)",
                                                      fmt::join(report::format_names(report::Subject::Run), ", ")));
    run.add_option("--watchdog", ra.watchdog, "declare a guest hung after this long without progress (default 3s)");
    run.add_flag("--no-baseline", ra.no_baseline, "do not add the baseline test");
    run.add_option("--guest-msr", ra.guest_msrs, "MSR=VALUE the guest writes first (repeatable), e.g. spec_ctrl=0x401");
    run.add_option("--guest-efer", ra.guest_efer, "guest EFER bits, e.g. nx=off or nx=on,sce=off");
    run.add_option("--cpuid", ra.cpuid, "CPUID edits for the guest: --cpuid=-x2apic,+rtm or --cpuid x2apic=off");
    run.add_flag("--allow-invd", ra.allow_invd, "let the invd test run (unsafe on bare-metal-like setups)");
    run.add_flag("--per-exit", ra.per_exit, "time every iteration on its own: percentiles and a histogram "
                                          "(at most 16 Mi samples per test)");
    run.add_flag("--profile", ra.profile, "record kvm tracepoints meanwhile: host-side handling time per test");
    run.add_option("--profile-out", ra.profile_out, "with --profile: keep the trace in FILE for 'profile report'");
    run.allow_extras(false);
}

namespace {

// Limits of the numeric options. kMaxIterations is suite/session.cpp's
// largest batch; --per-exit batches are bounded by the guest's sample buffer.
constexpr uint64_t kMaxIterations = 1ull << 36;
constexpr uint64_t kMaxRepeats = 1u << 20;
constexpr double kMaxTimeGoal = 10, kMaxWatchdog = 3600, kMinWatchdog = 1e-3;
// --per-exit keeps every sample (8 bytes each) of every test in memory and in
// the JSON: at most this many per test (128 MiB).
constexpr uint64_t kPerExitMaxSamples = 1u << 24;

// The numeric options, each parsed strictly against its range.
void parse_numbers(const RunArgs& a, suite::RunSettings& s) {
    uint64_t max_n = a.per_exit ? abi::kSampleMax : kMaxIterations;
    if (!a.iterations.empty())
        s.iterations = parse_count(a.per_exit ? "--iterations (with --per-exit)" : "--iterations", a.iterations,
                                   1, max_n);
    s.repeats = a.repeats.empty() ? kDefaultRepeats
                                  : static_cast<uint32_t>(parse_count("--repeats", a.repeats, 1, kMaxRepeats));
    if (!a.warmup.empty()) s.warmup = static_cast<uint32_t>(parse_count("--warmup", a.warmup, 0, 1000));
    s.sessions = a.sessions.empty() ? kDefaultSessions
                                    : static_cast<uint32_t>(parse_count("--sessions", a.sessions, 1, 1000));
    s.order_seed = a.seed.empty() ? std::random_device{}() : parse_count("--seed", a.seed, 0, UINT64_MAX);
    if (!a.time_goal.empty()) s.time_goal_s = parse_duration("--time-goal", a.time_goal, kMaxTimeGoal);
    if (!a.watchdog.empty()) s.watchdog_s = parse_duration("--watchdog", a.watchdog, kMaxWatchdog, kMinWatchdog);
    if (!a.smp.empty()) s.smp = static_cast<uint32_t>(parse_count("--smp", a.smp, 1, abi::kMaxVcpus));
    uint64_t batch = s.iterations.value_or(abi::kSampleMax);
    if (a.per_exit && uint64_t(s.repeats) * batch > kPerExitMaxSamples)
        throw UsageError(fmt::format("--per-exit keeps every sample: {} repeats of up to {} iterations exceed the "
                                     "cap of {} samples (128 MiB) per test; lower --repeats or set --iterations",
                                     s.repeats, batch, kPerExitMaxSamples));
}

} // namespace

RunPlan plan_run(const RunArgs& a) {
    RunPlan p;
    auto& s = p.settings;
    parse_numbers(a, s);
    if (!a.cpu.empty()) {
        auto cpus = parse_cpu_list("--cpu", a.cpu);
        if (cpus.size() != 1) throw UsageError("--cpu takes one CPU; use --pin for several vCPUs");
        check_cpu("--cpu", cpus[0]);
        s.cpu = cpus[0];
    }
    s.baseline = !a.no_baseline;
    if (a.pin == "auto") {
        s.pin_auto = true;
    } else if (!a.pin.empty()) {
        s.pin = parse_cpu_list("--pin", a.pin);
        for (int c : s.pin) check_cpu("--pin", c);
    }
    s.apic = a.apic;
    for (const auto& m : a.guest_msrs) s.guest_msrs.push_back(suite::parse_msr_knob(m));
    if (s.guest_msrs.size() > abi::kMaxKnobs)
        throw UsageError(fmt::format("--guest-msr: at most {} MSRs", abi::kMaxKnobs));
    if (!a.guest_efer.empty()) s.guest_efer = suite::parse_efer(a.guest_efer);
    if (!a.cpuid.empty()) {
        p.cpuid_edits = vmm::parse_cpuid_edits(a.cpuid);
        s.cpuid_edits = a.cpuid;
    }
    p.tests = select_tests(a.tests, s.baseline);
    p.allow_invd = a.allow_invd;
    s.per_exit = a.per_exit;
    s.profile = a.profile || !a.profile_out.empty();
    if (s.profile && s.sessions > 1) {
        if (!a.sessions.empty())
            throw UsageError("--profile attributes one session's time windows; use it with --sessions 1");
        s.sessions = 1;
    }
    p.profile_out = a.profile_out;
    p.argv = a.argv;
    if (!a.profile_out.empty()) require_writable(a.profile_out);
    if (!a.json.empty()) require_writable(a.json);
    return p;
}

void require_writable(const std::string& path) {
    try {
        report::check_writable(path);
    } catch (const std::exception& e) {
        throw UsageError(e.what());
    }
}

suite::RunReport execute(const kvm::System& sys, const RunPlan& plan, const std::atomic<bool>& interrupt,
                         bool progress) {
    const auto& s = plan.settings;
    auto ctx = suite::probe_context(sys);
    ctx.allow_invd = plan.allow_invd;
    vmm::apply_cpuid_edits(ctx.cpuid, plan.cpuid_edits, vmm::guest_cpuid(sys));
    ctx.apic_mode = suite::resolve_apic_mode(s.apic, ctx);
    if (s.smp > static_cast<uint32_t>(ctx.host_cpus))
        fmt::print(stderr, "exitbench: warning: {} vCPUs on {} host CPUs: overcommit skews the numbers\n",
                   s.smp, ctx.host_cpus);
    suite::RunReport rep;
    rep.tool_version = EB_VERSION;
    rep.provenance = capture_provenance(plan.argv);
    rep.settings = s;
    rep.host = vmm::probe_host(ctx.tsc_khz);
    rep.env = env::capture(rep.host);
    suite::Runner runner(sys, vmm::GuestImage::embedded(), ctx, s, rep.host.tsc_mhz, plan.cpuid_edits);
    std::unique_ptr<ProfileSession> prof;
    if (s.profile) prof = std::make_unique<ProfileSession>(rep.host, plan.profile_out);
    Progress shown(plan.tests.size(), s.sessions, progress);
    rep.results = runner.run_all(
        plan.tests, interrupt, [&](const suite::TestResult& r) { shown.done(r); },
        [&](const suite::TestSpec& t) { shown.starting(t.name); });
    if (prof) prof->attribute(rep.results);
    rep.interrupted = interrupt.load();
    return rep;
}

} // namespace eb::cli
