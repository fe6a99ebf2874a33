#include "suite/runner.h"

#include <cpuid.h>
#include <sched.h>
#include <cstring>
#include <fmt/format.h>

#include "guest/abi.h"
#include "suite/session.h"
#include "suite/sessions.h"
#include "suite/verify.h"
#include "vmm/boot.h"
#include "vmm/cpuid_features.h"
#include "vmm/machine.h"
#include "sys/error.h"

namespace eb::suite {

namespace {

// How long a guest waits for an interrupt before counting it lost.
constexpr double kIrqWaitSeconds = 0.02;

// No guest progress (no batch finished) for this long means hung; for a test
// known to livelock on this backend a few hundred ms is enough, far above
// the batch time goal (a batch that does run ends within 4 goals).
double watchdog_seconds(const RunSettings& s, const TestSpec& t, vmm::Backend b) {
    double w = std::max(s.watchdog_s, 4 * s.time_goal_s);
    if (t.livelocks(b)) w = std::min(w, std::max(kKnownLivelockWatchdogS, 4 * s.time_goal_s));
    return w;
}

vmm::Vendor guest_vendor(const std::vector<kvm_cpuid_entry2>& cpuid) {
    for (const auto& e : cpuid)
        if (e.function == 0) return vmm::vendor_of(vmm::cpuid_vendor_string(e.ebx, e.ecx, e.edx));
    return vmm::Vendor::Other;
}

// The knobs the run applied, to name what the guest read back.
struct AppliedKnobs {
    const std::vector<MsrKnob>& msrs;
    const std::vector<vmm::CpuidEdit>& cpuid;
    const EferKnob& efer;
};

constexpr uint64_t kEferSce = 1u << 0, kEferNx = 1u << 11;

// A --guest-efer bit the guest's EFER does not hold.
void check_efer(TestResult& r, uint64_t efer, const EferKnob& k) {
    auto bit = [&](const std::optional<bool>& want, uint64_t mask, const char* name) {
        if (want && bool(efer & mask) != *want)
            r.warnings.push_back(fmt::format("{}guest EFER.{}: asked {}, reads back {} (EFER {:#x})", kKnobNotApplied,
                                             name, *want ? "on" : "off", *want ? "off" : "on", efer));
    };
    bit(k.nx, kEferNx, "NX");
    bit(k.sce, kEferSce, "SCE");
}

// vCPU 0's view after the knobs; an MSR that did not keep its value is a warning.
void record_guest_state(TestResult& r, const abi::GuestState& st, const AppliedKnobs& knobs) {
    r.guest_state.efer = st.efer;
    check_efer(r, st.efer, knobs.efer);
    for (size_t i = 0; i < knobs.msrs.size(); ++i) {
        const auto& k = knobs.msrs[i];
        r.guest_state.msrs[k.name] = st.msr[i];
        if (st.msr[i] != k.value)
            r.warnings.push_back(fmt::format("{}guest MSR {} ({:#x}): wrote {:#x}, reads back {:#x}",
                                             kKnobNotApplied, k.name, k.index, k.value, st.msr[i]));
    }
    for (size_t i = 0; i < knobs.cpuid.size(); ++i) {
        const auto& f = knobs.cpuid[i].feature;
        r.guest_state.cpuid[f.name] = cpuid::has(f, st.cpuid[i]);
    }
}

// Every vCPU's registers, as the KVM selftests dump them: a hang may be any one's.
std::string all_registers(TestMachine& m) {
    std::string out;
    for (uint32_t i = 0; i < m.nr_vcpus(); ++i)
        out += fmt::format("{}vCPU {}: {}", i ? "; " : "", i, m.registers(i));
    return out;
}

// The status: how the vCPU threads ended first, then how the session did.
void set_status(TestResult& r, const TestSpec& t, const Session& s, TestMachine& m) {
    for (uint32_t i = 0; i < m.nr_vcpus(); ++i) {
        const auto& out = m.outcome(i);
        if (out.kind == vmm::VcpuOutcome::Unexpected) {
            r.status = Status::Failed;
            r.detail = fmt::format("vCPU {}: unexpected exit: {}; {}", i, out.detail, m.registers(i));
            return;
        }
        if (out.kind == vmm::VcpuOutcome::Error) {
            r.status = Status::Error;
            r.detail = fmt::format("vCPU {}: {}", i, out.detail);
            return;
        }
    }
    switch (s.end()) {
    case Session::End::Done:
        if (auto lost = check_irqs(t.expect, s.observed())) {
            r.status = Status::Failed;
            r.detail = *lost;
            break;
        }
        r.status = status_for(t.expect, r.exits);
        if (r.status == Status::NoExit && r.detail.empty()) r.detail = "no exit measured: " + t.expect.zero_why;
        break;
    case Session::End::Exception:
        r.status = Status::Failed;
        r.detail = fmt::format("vCPU {}: {}; {}", s.failed_vcpu(), s.failure(), m.registers(s.failed_vcpu()));
        break;
    case Session::End::Skipped:
        r.status = Status::Skipped;
        r.detail = "guest: " + s.failure();
        break;
    case Session::End::Running:
        r.status = Status::Error;
        r.detail = "guest stopped without finishing";
        break;
    default:
        r.status = Status::Failed;
        r.detail = fmt::format("vCPU {}: {}", s.failed_vcpu(), s.failure());
        break;
    }
}

TestResult from_session(const TestSpec& t, Session& s, TestMachine& m, vmm::Backend backend,
                        const AppliedKnobs& knobs) {
    TestResult r;
    r.name = t.name;
    r.vcpus = m.nr_vcpus();
    r.iterations = s.iterations();
    if (!s.samples().empty()) r.sessions.push_back({s.samples(), s.iterations(), s.batch_reused()});
    r.ipi_latency_cycles = s.ipi_latency();
    r.per_exit_cycles = std::move(s.per_exit());
    r.all_iterations = s.all_iterations();
    r.batch_windows = s.batch_windows();
    if (const auto& st = s.guest_state()) record_guest_state(r, *st, knobs);
    r.exits = check_exits(t.expect, s.observed(), backend);
    if (const auto& o = s.observed(); o.user_times.exits)
        r.user_times = UserTimes{o.user_times, std::max(o.all_iterations, o.iterations)};
    if (uint64_t n = std::max(s.observed().all_iterations, s.observed().iterations))
        r.irqs_per_iter = double(s.observed().irqs) / double(n);
    if (const auto& kvm = s.observed().kvm; kvm && s.observed().iterations)
        for (const auto& [k, v] : *kvm)
            r.kvm_stats_per_iter[k] = double(v) / double(s.observed().iterations);
    set_status(r, t, s, m);
    return r;
}

// The session's phases from its clock reads: `t0` before the VM was made,
// `ended` when the runner saw the session end (the watchdog's stop for a
// hang). The teardown and the total are the caller's.
WallSplit session_wall(const Session& s, int64_t t0, int64_t ended, bool hung) {
    WallSplit w;
    w.measured = s.measured_ns();
    w.warmup = s.warmup_ns();
    if (hung) w.watchdog = ended - s.last_progress_ns();
    int64_t up = s.ready_ns() ? s.ready_ns() : hung ? s.last_progress_ns() : ended;
    w.vm_start = up - t0;
    return w;
}

} // namespace

HostContext probe_context(const kvm::System& sys) {
    HostContext h;
    h.sys = &sys;
    h.backend = vmm::detect_backend();
    h.cpuid = vmm::guest_cpuid(sys);
    h.vendor = guest_vendor(h.cpuid);
    h.host_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    try {
        auto vm = sys.create_vm();
        auto vcpu = vm.create_vcpu(0);
        h.tsc_khz = vcpu.tsc_khz();
    } catch (const std::exception&) {
        // leave tsc_khz empty: the host facts fall back to calibration
    }
    return h;
}

uint32_t resolve_apic_mode(const std::string& choice, const HostContext& h) {
    bool has_x2 = vmm::cpuid_bit(h.cpuid, cpuid::kX2apic);
    if (choice == "xapic") return abi::kXapic;
    if (choice == "x2apic") {
        if (!has_x2) throw HostError("--apic x2apic: KVM does not offer x2APIC to guests here");
        return abi::kX2apic;
    }
    if (choice == "auto") return has_x2 ? abi::kX2apic : abi::kXapic;
    throw InputError(fmt::format("--apic must be one of {}, not '{}'", fmt::join(kApicModes, ", "), choice));
}

Runner::Runner(const MachineFactory& machines, HostContext host, RunSettings settings, double tsc_mhz,
               std::vector<vmm::CpuidEdit> cpuid_edits)
    : machines_(machines), host_(std::move(host)), settings_(settings), tsc_mhz_(tsc_mhz),
      cpuid_edits_(std::move(cpuid_edits)) {}

TestResult Runner::run(const TestSpec& t, const std::atomic<bool>& interrupt, uint64_t reuse_batch) const {
    TestResult r;
    r.name = t.name;
    if (auto why = t.skip_reason(host_)) {
        r.status = Status::Skipped;
        r.detail = *why;
        return r;
    }
    auto body_name = t.body_for(host_);
    const abi::BodyEntry* body = body_name ? machines_.body(*body_name) : nullptr;
    if (!body) {
        r.status = Status::Error;
        r.detail = "the guest image has no body for " + t.name;
        return r;
    }
    int64_t t0 = monotonic_ns(), ended = 0;  // `ended`: when the session ended, once it ran
    try {
        r = measure(t, *body, interrupt, reuse_batch, ended);
    } catch (const std::exception& e) {
        r.status = Status::Error;
        r.detail = e.what();
    }
    if (is_failure(r.status))
        if (auto known = t.known_issue(host_.backend)) r.detail = *known + "; " + r.detail;
    r.start_ns = t0;
    r.end_ns = monotonic_ns();
    r.wall_seconds = (r.end_ns - t0) / 1e9;
    r.wall.total = r.end_ns - t0;
    if (ended) r.wall.teardown = r.end_ns - ended;  // the VM is gone now
    r.wall.other = r.wall.total - r.wall.named();
    return r;
}

vmm::MachineConfig Runner::machine_config(const TestSpec& t, const abi::BodyEntry& body) const {
    vmm::MachineConfig cfg;
    cfg.batch = body.batch;
    cfg.setup = body.setup;
    if (settings_.per_exit) cfg.per_exit = body.per_exit;
    cfg.vcpus = std::max(settings_.smp, t.min_vcpus);
    cfg.pin = pins(cfg.vcpus);
    cfg.apic_mode = host_.apic_mode;
    cfg.parallel = t.parallel;
    cfg.irq_wait_cycles = static_cast<uint64_t>(kIrqWaitSeconds * tsc_mhz_ * 1e6);
    cfg.cpuid = host_.cpuid;
    if (settings_.guest_efer.nx) cfg.cpu.efer_nx = *settings_.guest_efer.nx;
    if (settings_.guest_efer.sce) cfg.cpu.efer_sce = *settings_.guest_efer.sce;
    for (const auto& k : settings_.guest_msrs) cfg.msr_knobs.emplace_back(k.index, k.value);
    for (const auto& e : cpuid_edits_) cfg.cpuid_probes.emplace_back(e.feature.leaf, e.feature.sub);
    return cfg;
}

// Waits for vCPU 0 to finish; Interrupted or Hung when it had to be stopped.
std::optional<Status> Runner::watch(TestMachine& m, const Session& s, const std::atomic<bool>& interrupt,
                                    int64_t budget_ns, int64_t& ended_ns) const {
    m.start();
    std::optional<Status> stopped;
    while (!m.wait(std::chrono::milliseconds(10))) {
        if (interrupt.load()) {
            stopped = Status::Interrupted;
            break;
        }
        // An AP that failed leaves vCPU 0 waiting for it: its failure, not a hang.
        if (auto e = s.end(); e != Session::End::Running && e != Session::End::Done) break;
        if (monotonic_ns() - s.last_progress_ns() > budget_ns) {
            stopped = Status::Hung;
            break;
        }
    }
    ended_ns = monotonic_ns();  // stopping the threads is teardown
    m.stop();
    return stopped;
}

TestResult Runner::measure(const TestSpec& t, const abi::BodyEntry& body, const std::atomic<bool>& interrupt,
                           uint64_t reuse_batch, int64_t& ended) const {
    const int64_t t0 = monotonic_ns();
    auto cfg = machine_config(t, body);
    // Declared before the machine: the hooks hear the end after its threads stopped.
    struct HookScope {
        MeasureHooks* h;
        const std::string& name;
        ~HookScope() { if (h) h->test_ended(name); }
    } hook_scope{hooks_, t.name};
    if (hooks_) hooks_->test_starting(t.name);
    // The fixture outlives the machine: its memory and fds go after the VM.
    std::unique_ptr<Fixture> fixture = t.fixture ? t.fixture() : nullptr;
    auto machine = machines_.make(cfg, fixture.get());
    auto& m = *machine;
    Session s(m.executor(), settings_, tsc_mhz_, t.parallel ? cfg.vcpus : 1, fixture.get(), t.max_iterations);
    s.set_hooks(hooks_);
    s.reuse_batch(reuse_batch);
    m.on_ucall([&s](const vmm::Access& a) { return s.on_ucall(a); });

    const int64_t budget_ns = static_cast<int64_t>(watchdog_seconds(settings_, t, host_.backend) * 1e9);
    auto stopped = watch(m, s, interrupt, budget_ns, ended);
    TestResult r = from_session(t, s, m, host_.backend, {settings_.guest_msrs, cpuid_edits_, settings_.guest_efer});
    r.wall = session_wall(s, t0, ended, stopped == Status::Hung);
    if (stopped) {
        r.status = *stopped;
        r.detail = *stopped == Status::Hung
                       ? fmt::format("no guest progress (no batch finished) for {:.1f} s; stopped by the "
                                     "watchdog{}; {}", budget_ns / 1e9,
                                     t.livelocks(host_.backend) ? " (short: known to livelock here)" : "",
                                     all_registers(m))
                       : "interrupted by the user";
    } else if (fixture && !is_failure(r.status) && r.status != Status::Skipped) {
        if (auto c = fixture->check(s.all_iterations())) {
            r.host_checks.push_back(c->what);
            if (!c->ok) {
                r.status = Status::Mismatch;
                r.detail = c->what;
            }
        }
    }
    return r;
}

std::vector<int> Runner::pins(uint32_t vcpus) const {
    std::vector<int> out;
    if (settings_.pin_auto) {
        cpu_set_t set;
        CPU_ZERO(&set);
        std::vector<int> allowed;
        if (sched_getaffinity(0, sizeof set, &set) == 0)
            for (int c = 0; c < CPU_SETSIZE; ++c)
                if (CPU_ISSET(c, &set)) allowed.push_back(c);
        for (uint32_t i = 0; i < vcpus && !allowed.empty(); ++i) out.push_back(allowed[i % allowed.size()]);
    } else if (!settings_.pin.empty()) {
        out = settings_.pin;
    } else if (settings_.cpu) {
        out = {*settings_.cpu};
    }
    return out;
}

std::vector<TestResult> Runner::run_all(const std::vector<const TestSpec*>& tests,
                                        const std::atomic<bool>& interrupt,
                                        const std::function<void(const TestResult&)>& done,
                                        const std::function<void(const TestSpec&)>& starting) const {
    return run_sessions(
        tests, settings_, interrupt,
        [&](const TestSpec& t, uint64_t reuse_batch) { return run(t, interrupt, reuse_batch); }, done, starting);
}

} // namespace eb::suite
