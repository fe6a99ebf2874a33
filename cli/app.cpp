#include "cli/app.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <csignal>
#include <fmt/format.h>
#include <iostream>
#include <sched.h>
#include <unistd.h>

#include "cli/parse.h"
#include "cli/suggest.h"
#include "env/host_env.h"
#include "vmm/boot.h"
#include "vmm/cpuid_features.h"
#include "guest/abi.h"
#include "kvm/error.h"
#include "report/exporter.h"
#include "report/file.h"
#include "report/json.h"
#include "suite/registry.h"
#include "suite/runner.h"
#include "vmm/image.h"
#include "vmm/machine.h"

#ifndef EB_VERSION
#define EB_VERSION "dev"
#endif

namespace eb::cli {

namespace {

std::atomic<bool> g_interrupted{false};

void on_sigint(int) {
    g_interrupted.store(true);
    std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct HostError : std::runtime_error {
    using std::runtime_error::runtime_error;
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

kvm::System open_kvm(const std::string& device) {
    try {
        auto sys = kvm::System::open(device);
        vmm::check_host(sys);
        return sys;
    } catch (const std::exception& e) {
        throw HostError(e.what());
    }
}

int cmd_list(const std::string& device, bool all) {
    auto sys = open_kvm(device);
    auto ctx = suite::probe_context(sys);
    ctx.apic_mode = suite::resolve_apic_mode("auto", ctx);
    size_t w = 4;
    for (const auto& t : suite::registry())
        if (all || !t.internal) w = std::max(w, t.name.size());
    fmt::print("{:<{}} {:<26} {}\n", "test", w, "expects per iteration", "what it exercises");
    for (const auto& t : suite::registry()) {
        if (t.internal && !all) continue;
        fmt::print("{:<{}} {:<26} {}\n", t.name, w, t.expect.describe(), t.summary);
        if (!t.aliases.empty()) fmt::print("{:<{}}   alias: {}\n", "", w, fmt::join(t.aliases, ", "));
        if (t.min_vcpus > 1 || t.parallel)
            fmt::print("{:<{}}   {}{}\n", "", w, t.min_vcpus > 1 ? fmt::format("runs with at least {} vCPUs", t.min_vcpus) : "",
                       t.parallel ? "runs on every vCPU at once (KUT's parallel)" : "");
        if (t.expect.may_be_zero)
            fmt::print("{:<{}}   may measure no exit: {}\n", "", w, t.expect.zero_why);
        if (auto why = t.skip_reason(ctx)) fmt::print("{:<{}}   skipped on this host: {}\n", "", w, *why);
        if (auto known = t.known_issue(ctx.backend)) fmt::print("{:<{}}   on this host: {}\n", "", w, *known);
    }
    fmt::print("\nKVM backend here: {}\n", vmm::backend_name(ctx.backend));
    return kOk;
}

int cmd_env(const std::string& device) {
    std::optional<uint64_t> khz;
    try {
        auto sys = kvm::System::open(device);
        khz = suite::probe_context(sys).tsc_khz;
    } catch (const std::exception& e) {
        fmt::print(stderr, "exitbench: warning: {}; KVM facts are missing\n", e.what());
    }
    auto facts = env::capture(vmm::probe_host(khz));
    size_t w = 0;
    for (const auto& [k, v] : facts) w = std::max(w, k.size());
    for (const auto& [k, v] : facts) fmt::print("{:<{}}  {}\n", k, w, v);
    return kOk;
}

struct RunArgs {
    std::vector<std::string> tests;
    std::string iterations, repeats, time_goal, watchdog, json, format = "table", smp, pin, apic = "auto";
    std::string cpu, guest_efer, cpuid;
    std::vector<std::string> guest_msrs;
    bool no_baseline = false;
    bool allow_invd = false;
};

int cmd_run(const std::string& device, const RunArgs& a) {
    suite::RunSettings s;
    if (!a.iterations.empty()) s.iterations = parse_positive("--iterations", a.iterations);
    if (!a.repeats.empty()) s.repeats = static_cast<uint32_t>(std::min<uint64_t>(
                                parse_positive("--repeats", a.repeats), 1u << 20));
    if (!a.time_goal.empty()) s.time_goal_s = parse_duration("--time-goal", a.time_goal);
    if (!a.watchdog.empty()) s.watchdog_s = parse_duration("--watchdog", a.watchdog);
    if (!a.cpu.empty()) {
        auto cpus = parse_cpu_list("--cpu", a.cpu);
        if (cpus.size() != 1) throw UsageError("--cpu takes one CPU; use --pin for several vCPUs");
        check_cpu("--cpu", cpus[0]);
        s.cpu = cpus[0];
    }
    s.baseline = !a.no_baseline;
    if (!a.smp.empty())
        s.smp = static_cast<uint32_t>(std::min<uint64_t>(parse_positive("--smp", a.smp), abi::kMaxVcpus + 1));
    if (s.smp > abi::kMaxVcpus) throw UsageError(fmt::format("--smp: at most {} vCPUs", abi::kMaxVcpus));
    if (a.pin == "auto") {
        s.pin_auto = true;
    } else if (!a.pin.empty()) {
        s.pin = parse_cpu_list("--pin", a.pin);
        for (int c : s.pin) check_cpu("--pin", c);
    }
    s.apic = a.apic;
    for (const auto& m : a.guest_msrs) s.guest_msrs.push_back(suite::parse_msr_knob(m));
    if (s.guest_msrs.size() > 8) throw UsageError("--guest-msr: at most 8 MSRs");
    if (!a.guest_efer.empty()) s.guest_efer = suite::parse_efer(a.guest_efer);
    std::vector<vmm::CpuidEdit> edits;
    if (!a.cpuid.empty()) {
        edits = vmm::parse_cpuid_edits(a.cpuid);
        s.cpuid_edits = a.cpuid;
    }
    auto exporter = report::make_exporter(a.format);
    if (!exporter)
        throw UsageError(fmt::format("--format must be one of {}, not '{}'",
                                     fmt::join(report::format_names(), ", "), a.format));
    auto tests = select_tests(a.tests, s.baseline);
    if (!a.json.empty()) {
        try {
            report::check_writable(a.json);
        } catch (const std::exception& e) {
            throw UsageError(e.what());
        }
    }

    auto sys = open_kvm(device);
    auto ctx = suite::probe_context(sys);
    ctx.allow_invd = a.allow_invd;
    vmm::apply_cpuid_edits(ctx.cpuid, edits, vmm::guest_cpuid(sys));
    ctx.apic_mode = suite::resolve_apic_mode(s.apic, ctx);
    if (s.smp > static_cast<uint32_t>(ctx.host_cpus))
        fmt::print(stderr, "exitbench: warning: {} vCPUs on {} host CPUs: overcommit skews the numbers\n",
                   s.smp, ctx.host_cpus);
    suite::RunReport rep;
    rep.tool_version = EB_VERSION;
    rep.settings = s;
    rep.host = vmm::probe_host(ctx.tsc_khz);
    rep.env = env::capture(rep.host);
    suite::Runner runner(sys, vmm::GuestImage::embedded(), ctx, s, rep.host.tsc_mhz);

    std::signal(SIGINT, on_sigint);
    bool tty = isatty(STDERR_FILENO);
    size_t i = 0;
    rep.results = runner.run_all(tests, g_interrupted, [&](const suite::TestResult& r) {
        ++i;
        if (tty)
            fmt::print(stderr, "[{}/{}] {} {} ({:.1f} s)\n", i, tests.size(), r.name,
                       suite::status_name(r.status), r.wall_seconds);
    });
    std::signal(SIGINT, SIG_DFL);
    rep.interrupted = g_interrupted.load();

    std::cout << exporter->render(rep) << std::flush;
    if (!a.json.empty()) report::write_file_atomic(a.json, report::to_json(rep).dump(2) + "\n");
    if (rep.interrupted) return kInterrupted;
    bool failed = std::any_of(rep.results.begin(), rep.results.end(),
                              [](const auto& r) { return suite::is_failure(r.status); });
    return failed ? kTestFailed : kOk;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"exitbench: what does one VM exit cost? A KVM VM-exit laboratory."};
    app.set_version_flag("--version", EB_VERSION);
    app.require_subcommand(0, 1);
    app.allow_extras();  // so an unknown command gets our message, not CLI11's
    std::string device = "/dev/kvm";
    app.add_option("--device", device, "KVM device node")->capture_default_str();

    bool list_all = false;
    auto* list = app.add_subcommand("list", "list the tests, what each expects, and skips on this host");
    list->add_flag("--all", list_all, "include the harness self-tests");
    list->allow_extras(false);

    auto* envc = app.add_subcommand("env", "print the host environment a result records");
    envc->allow_extras(false);

    RunArgs ra;
    auto* run = app.add_subcommand("run", "run tests (all of the default suite when none are named)");
    run->add_option("tests", ra.tests, "test names (see 'list')");
    run->add_option("-n,--iterations", ra.iterations, "fixed iterations per batch (default: adaptive)");
    run->add_option("-r,--repeats", ra.repeats, "measured batches per test (default 10)");
    run->add_option("--time-goal", ra.time_goal, "adaptive batch duration, e.g. 20ms (default)");
    run->add_option("--cpu", ra.cpu, "pin vCPU 0's thread to this host CPU");
    run->add_option("--smp", ra.smp, "vCPUs per VM (default 1; tests that need more get their minimum)");
    run->add_option("--pin", ra.pin, "host CPU per vCPU, e.g. 0,1 or 2-5, or 'auto'");
    run->add_option("--apic", ra.apic, "APIC mode: auto (x2APIC when offered, as KUT), xapic, x2apic");
    run->add_option("--json", ra.json, "write the full result as JSON to FILE");
    run->add_option("--format", ra.format, "stdout format: table, kut or json");
    run->add_option("--watchdog", ra.watchdog, "declare a guest hung after this long without progress (default 3s)");
    run->add_flag("--no-baseline", ra.no_baseline, "do not add the baseline test");
    run->add_option("--guest-msr", ra.guest_msrs, "MSR=VALUE the guest writes first (repeatable), e.g. spec_ctrl=0x401");
    run->add_option("--guest-efer", ra.guest_efer, "guest EFER bits, e.g. nx=off or nx=on,sce=off");
    run->add_option("--cpuid", ra.cpuid, "CPUID edits for the guest: --cpuid=-x2apic,+rtm or --cpuid x2apic=off");
    run->add_flag("--allow-invd", ra.allow_invd, "let the invd test run (unsafe on bare-metal-like setups)");
    run->allow_extras(false);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);
        fmt::print(stderr, "exitbench: error: {} (see --help)\n", e.what());
        return kUsage;
    }
    if (auto extra = app.remaining(); !extra.empty()) {
        fmt::print(stderr, "exitbench: error: unknown command or option '{}' (see --help)\n",
                   extra.front());
        return kUsage;
    }
    if (!*list && !*run && !*envc) {
        fmt::print(stderr, "exitbench: error: a command is required: list, run or env (see --help)\n");
        return kUsage;
    }
    try {
        if (*list) return cmd_list(device, list_all);
        if (*envc) return cmd_env(device);
        return cmd_run(device, ra);
    } catch (const UsageError& e) {
        fmt::print(stderr, "exitbench: error: {}\n", e.what());
        return kUsage;
    } catch (const std::invalid_argument& e) {
        fmt::print(stderr, "exitbench: error: {}\n", e.what());
        return kUsage;
    } catch (const HostError& e) {
        fmt::print(stderr, "exitbench: error: {}\n", e.what());
        return kHost;
    } catch (const std::exception& e) {
        fmt::print(stderr, "exitbench: error: {}\n", e.what());
        return kHost;
    }
}

} // namespace eb::cli
