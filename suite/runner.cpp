#include "suite/runner.h"

#include <cpuid.h>
#include <cstring>
#include <fmt/format.h>

#include "guest/abi.h"
#include "suite/session.h"
#include "suite/verify.h"
#include "vmm/devices.h"
#include "vmm/machine.h"

namespace eb::suite {

namespace {

vmm::Vendor guest_vendor(const std::vector<kvm_cpuid_entry2>& cpuid) {
    for (const auto& e : cpuid)
        if (e.function == 0) {
            char s[13];
            std::memcpy(s, &e.ebx, 4);
            std::memcpy(s + 4, &e.edx, 4);
            std::memcpy(s + 8, &e.ecx, 4);
            s[12] = 0;
            return vmm::vendor_of(s);
        }
    return vmm::Vendor::Other;
}

TestResult from_session(const TestSpec& t, Session& s, vmm::Machine& m, vmm::Backend backend) {
    TestResult r;
    r.name = t.name;
    r.iterations = s.iterations();
    r.samples = s.samples();
    r.exits = check_exits(t.expect, s.observed(), backend);
    if (const auto& kvm = s.observed().kvm; kvm && s.observed().iterations)
        for (const auto& [k, v] : *kvm)
            r.kvm_stats_per_iter[k] = double(v) / double(s.observed().iterations);

    const auto& out = m.outcome(0);
    switch (out.kind) {
    case vmm::VcpuOutcome::Unexpected:
        r.status = Status::Failed;
        r.detail = "unexpected exit: " + out.detail + "; " + m.registers(0);
        return r;
    case vmm::VcpuOutcome::Error:
        r.status = Status::Error;
        r.detail = out.detail;
        return r;
    default:
        break;
    }
    switch (s.end()) {
    case Session::End::Done:
        r.status = classify(t.expect, r.exits);
        if (r.status == Status::NoExit && r.detail.empty())
            r.detail = "no exit measured: " + t.expect.zero_why;
        break;
    case Session::End::Exception:
        r.status = Status::Failed;
        r.detail = s.failure() + "; " + m.registers(0);
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
        r.detail = s.failure();
        break;
    }
    return r;
}

} // namespace

HostContext probe_context(const kvm::System& sys) {
    HostContext h;
    h.sys = &sys;
    h.backend = vmm::detect_backend();
    h.cpuid = sys.supported_cpuid();
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

Runner::Runner(const kvm::System& sys, const vmm::GuestImage& image, HostContext host,
               RunSettings settings, double tsc_mhz)
    : sys_(sys), image_(image), host_(std::move(host)), settings_(settings), tsc_mhz_(tsc_mhz) {}

TestResult Runner::run(const TestSpec& t, const std::atomic<bool>& interrupt) const {
    TestResult r;
    r.name = t.name;
    if (auto why = t.skip_reason(host_)) {
        r.status = Status::Skipped;
        r.detail = *why;
        return r;
    }
    auto body_name = t.body_for(host_);
    const abi::BodyEntry* body = body_name ? image_.body(*body_name) : nullptr;
    if (!body) {
        r.status = Status::Error;
        r.detail = "the guest image has no body for " + t.name;
        return r;
    }
    int64_t t0 = monotonic_ns();
    try {
        vmm::MachineConfig cfg;
        cfg.batch = body->batch;
        cfg.setup = body->setup;
        if (settings_.cpu) cfg.pin = {*settings_.cpu};
        vmm::Machine m(sys_, image_, cfg);
        vmm::install_test_devices(m);
        std::unique_ptr<Fixture> fixture = t.fixture ? t.fixture() : nullptr;
        if (fixture) fixture->install(m);
        Session s(m, settings_, tsc_mhz_);
        m.pio().add("ucall", abi::kUcallPort, 4, [&s](const vmm::Access& a) { return s.on_ucall(a); });

        const int64_t budget_ns = static_cast<int64_t>(
            std::max(settings_.watchdog_s, 4 * settings_.time_goal_s) * 1e9);
        m.start();
        std::optional<Status> stopped;
        while (!m.wait(std::chrono::milliseconds(10))) {
            if (interrupt.load()) {
                stopped = Status::Interrupted;
                break;
            }
            if (monotonic_ns() - s.last_progress_ns() > budget_ns) {
                stopped = Status::Hung;
                break;
            }
        }
        m.stop();
        if (stopped) {
            r = from_session(t, s, m, host_.backend);
            r.status = *stopped;
            r.detail = *stopped == Status::Hung
                           ? fmt::format("no guest progress for {:.1f} s; stopped by the watchdog; {}",
                                         budget_ns / 1e9, m.registers(0))
                           : "interrupted by the user";
        } else {
            r = from_session(t, s, m, host_.backend);
            if (fixture && !is_failure(r.status) && r.status != Status::Skipped)
                if (auto c = fixture->check(s.all_iterations())) {
                    r.host_checks.push_back(c->what);
                    if (!c->ok) {
                        r.status = Status::Mismatch;
                        r.detail = c->what;
                    }
                }
        }
    } catch (const std::exception& e) {
        r.status = Status::Error;
        r.detail = e.what();
    }
    if (is_failure(r.status))
        if (auto known = t.known_issue(host_.backend)) r.detail = *known + "; " + r.detail;
    r.wall_seconds = (monotonic_ns() - t0) / 1e9;
    return r;
}

std::vector<TestResult> Runner::run_all(const std::vector<const TestSpec*>& tests,
                                        const std::atomic<bool>& interrupt,
                                        const std::function<void(const TestResult&)>& done) const {
    std::vector<TestResult> out;
    for (const auto* t : tests) {
        if (interrupt.load()) break;
        out.push_back(run(*t, interrupt));
        if (done) done(out.back());
        if (out.back().status == Status::Interrupted) break;
    }
    return out;
}

} // namespace eb::suite
