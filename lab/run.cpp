#include "lab/run.h"

#include <ctime>
#include <fmt/format.h>
#include <fstream>
#include <memory>
#include <unistd.h>

#include "env/host_env.h"
#include "lab/profile_session.h"
#include "lab/trace_verify.h"
#include "lab/version.h"
#include "sys/file.h"
#include "suite/runner.h"
#include "suite/session.h"
#include "vmm/boot.h"
#include "vmm/image.h"

namespace eb::lab {

std::string utc_now(const char* format) {
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char stamp[64];
    return std::strftime(stamp, sizeof stamp, format, &tm) ? stamp : "";
}

suite::Provenance capture_provenance(const std::vector<std::string>& argv) {
    suite::Provenance p;
    p.timestamp_utc = utc_now("%Y-%m-%dT%H:%M:%SZ");
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) p.hostname = host;
    p.argv = argv;
    p.git_describe = git_describe();
    std::ifstream f("/proc/sys/kernel/random/boot_id");
    std::getline(f, p.boot_id);  // stays empty where /proc does not say
    return p;
}

void require_writable(const std::string& path) {
    try {
        sys::check_writable(path);
    } catch (const HostError& e) {  // a path the user named that cannot be written: their argument
        throw InputError(e.what());
    }
}

kvm::System open_kvm(const std::string& device) {
    try {
        auto sys = kvm::System::open(device);
        vmm::check_host(sys);
        return sys;
    } catch (const std::exception& e) {
        throw NoKvm(e.what());
    }
}

namespace {

// The trace verification's batches: one of kTraceVerifyIterations per test,
// nothing else measured or recorded.
suite::RunSettings verification_settings(suite::RunSettings s) {
    s.iterations = kTraceVerifyIterations;
    s.repeats = s.sessions = 1;
    s.warmup = 0;
    s.per_exit = s.profile = false;
    return s;
}

} // namespace

suite::RunReport execute(const kvm::System& sys, const RunPlan& plan, const std::atomic<bool>& interrupt,
                         const RunObserver& observer, suite::MeasureHooks* hooks) {
    const int64_t t0 = suite::monotonic_ns();
    suite::KvmMachines machines(sys, vmm::GuestImage::embedded());
    // The probe is set-up too: the wall-time account starts before it.
    return execute(RunTarget{suite::probe_context(sys), machines, t0}, plan, interrupt, observer, hooks);
}

suite::RunReport execute(const RunTarget& target, const RunPlan& plan, const std::atomic<bool>& interrupt,
                         const RunObserver& observer, suite::MeasureHooks* hooks) {
    // The wall-time account's start.
    const int64_t t0 = target.started_ns ? target.started_ns : suite::monotonic_ns();
    const auto& s = plan.settings;
    auto ctx = target.ctx;
    const auto& machines = target.machines;
    ctx.allow_invd = plan.allow_invd;
    vmm::apply_cpuid_edits(ctx.cpuid, plan.cpuid_edits, target.ctx.cpuid);
    ctx.apic_mode = suite::resolve_apic_mode(s.apic, ctx);
    if (s.smp > static_cast<uint32_t>(ctx.host_cpus))
        fmt::print(stderr, "exitbench: warning: {} vCPUs on {} host CPUs: overcommit skews the numbers\n",
                   s.smp, ctx.host_cpus);
    suite::RunReport rep;
    rep.tool_version = version();
    rep.provenance = capture_provenance(plan.argv);
    rep.settings = s;
    rep.host = vmm::probe_host(ctx.tsc_khz);
    rep.env = env::capture(rep.host);
    suite::Runner runner(machines, ctx, s, rep.host.tsc_mhz, plan.cpuid_edits);
    runner.set_hooks(hooks);
    const int64_t setup_ns = suite::monotonic_ns() - t0;
    std::unique_ptr<ProfileSession> prof;
    // Without kvm_exit there is nothing to attribute: record only when the trace is to be kept.
    if (s.profile && (ProfileSession::can_attribute(rep.host.backend) || !plan.profile_out.empty()))
        prof = std::make_unique<ProfileSession>(rep.host, plan.profile_out);
    rep.results = runner.run_all(
        plan.tests, interrupt,
        [&](const suite::TestResult& r) {
            if (observer.done) observer.done(r);
        },
        [&](const suite::TestSpec& t) {
            if (observer.starting) observer.starting(t.name);
        });
    suite::split_userspace_exits(rep);
    if (prof) prof->attribute(rep.results);
    else if (s.profile) ProfileSession::nothing_to_attribute(rep.results, rep.host);
    prof.reset();  // its ftrace instance is gone before verification makes one
    int64_t verify_ns = 0;
    if (!interrupt.load() && s.trace_verify) {
        int64_t v0 = suite::monotonic_ns();
        suite::Runner verifier(machines, ctx, verification_settings(s), rep.host.tsc_mhz,
                               plan.cpuid_edits);
        verify_by_trace(rep.results, rep.host, [&](const suite::TestSpec& t) { return verifier.run(t, interrupt); },
                        interrupt);
        verify_ns = suite::monotonic_ns() - v0;
    }
    rep.interrupted = interrupt.load();
    rep.wall_time = suite::account_run(rep.results, suite::monotonic_ns() - t0, verify_ns, setup_ns);
    return rep;
}

} // namespace eb::lab
