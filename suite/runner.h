// Runs registry tests, each in a fresh VM, under a watchdog.
#pragma once
#include <array>
#include <atomic>
#include <functional>
#include <vector>

#include "guest/abi.h"
#include "kvm/system.h"
#include "suite/result.h"
#include "suite/measure_hooks.h"
#include "suite/session.h"
#include "suite/spec.h"
#include "suite/test_machine.h"
#include "vmm/cpuid_features.h"
#include "vmm/machine.h"

namespace eb::suite {

// Probes what the tests' requirements ask about (one throwaway vCPU).
HostContext probe_context(const kvm::System& sys);
// --apic's values.
inline constexpr std::array<std::string_view, 3> kApicModes = {"auto", "xapic", "x2apic"};
// "auto" (x2APIC when KVM offers it, as KUT does), "xapic" or "x2apic";
// throws InputError for anything else, and std::runtime_error for an x2APIC the host lacks.
uint32_t resolve_apic_mode(const std::string& choice, const HostContext& h);

class Runner {
public:
    // Each test runs in a fresh machine of `machines` (KvmMachines, or a
    // fake in unit tests), which outlives the Runner. `cpuid_edits`:
    // settings.cpuid_edits as parsed; the guest reports back the bits they name.
    Runner(const MachineFactory& machines, HostContext host, RunSettings settings, double tsc_mhz,
           std::vector<vmm::CpuidEdit> cpuid_edits = {});

    // `reuse_batch`: an earlier session's calibrated batch size to start from (0: none).
    TestResult run(const TestSpec& t, const std::atomic<bool>& interrupt, uint64_t reuse_batch = 0) const;
    // Tells `h` about every test's measured batches from now on (nullptr: no one).
    void set_hooks(MeasureHooks* h) { hooks_ = h; }

    // Runs `tests` settings.sessions times (run_sessions: fresh orders, the
    // calibrated batch size reused, a hang learnt once); stops early on
    // interrupt. `done` sees each session's result, `starting` each test
    // before it runs; the returned results merge the sessions, in `tests` order.
    std::vector<TestResult> run_all(const std::vector<const TestSpec*>& tests,
                                    const std::atomic<bool>& interrupt,
                                    const std::function<void(const TestResult&)>& done,
                                    const std::function<void(const TestSpec&)>& starting = {}) const;

private:
    // One test in a fresh VM; throws what setting it up throws. `ended`: when
    // the session ended (the VM's teardown starts), for the wall-time account.
    TestResult measure(const TestSpec& t, const abi::BodyEntry& body, const std::atomic<bool>& interrupt,
                       uint64_t reuse_batch, int64_t& ended) const;
    vmm::MachineConfig machine_config(const TestSpec& t, const abi::BodyEntry& body) const;
    std::optional<Status> watch(TestMachine& m, const Session& s, const std::atomic<bool>& interrupt,
                                int64_t budget_ns, int64_t& ended_ns) const;
    std::vector<int> pins(uint32_t vcpus) const;

    const MachineFactory& machines_;
    HostContext host_;
    RunSettings settings_;
    double tsc_mhz_;
    std::vector<vmm::CpuidEdit> cpuid_edits_;
    MeasureHooks* hooks_ = nullptr;
};

} // namespace eb::suite
