// What a registry entry says about a test.
#pragma once
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <linux/kvm.h>

#include "guest/cpuid_bits.h"
#include "kvm/system.h"
#include "suite/fixture.h"
#include "vmm/host.h"

namespace eb::suite {

// The watchdog of a test on a backend it is known to livelock on (TestSpec::livelocks_on).
inline constexpr double kKnownLivelockWatchdogS = 0.3;

// Where the exit a test provokes is handled.
enum class ExitKind { None, Kernel, UserIo, UserMmio, UserHypercall, UserMsr };
const char* exit_kind_name(ExitKind k);

struct Expect {
    ExitKind kind = ExitKind::None;
    double per_iter = 0;          // exits per iteration (the minimum, with max_per_iter)
    bool may_be_zero = false;     // KVM may legitimately not intercept it
    std::string zero_why;         // ...and why
    double max_per_iter = 0;      // > per_iter: a range, where APIC virtualization varies it
    std::optional<double> irqs_per_iter = {};  // interrupts the guest must handle

    Expect up_to(double max) const {
        Expect e = *this;
        e.max_per_iter = max;
        return e;
    }
    Expect with_irqs(double n) const {
        Expect e = *this;
        e.irqs_per_iter = n;
        return e;
    }
    std::string describe() const;

    Expect maybe_none(std::string why) const {
        Expect e = *this;
        e.may_be_zero = true;
        e.zero_why = std::move(why);
        return e;
    }
};
inline Expect no_exit() { return {ExitKind::None, 0, false, {}}; }
inline Expect kernel_exits(double n) { return {ExitKind::Kernel, n, false, {}}; }
inline Expect user_io_exits(double n) { return {ExitKind::UserIo, n, false, {}}; }
inline Expect user_mmio_exits(double n) { return {ExitKind::UserMmio, n, false, {}}; }
inline Expect user_hypercall_exits(double n) { return {ExitKind::UserHypercall, n, false, {}}; }
inline Expect user_msr_exits(double n) { return {ExitKind::UserMsr, n, false, {}}; }

// The kvm tracepoint hit that is this test's exit, where one names it: how the
// exits are verified where the stats fd cannot count them (kvm_pvm).
struct TraceKey {
    enum Event { None, Msr, Pio, Mmio, Cpuid, ApicIpi, AcceptIrq, Emulate, NoExit, HostFault } event = None;
    // kvm_msr.ecx, kvm_pio.port, kvm_mmio.gpa, kvm_cpuid.function. ApicIpi and
    // AcceptIrq count every hit (the VM has only the test's interrupts).
    uint64_t key = 0;
    // Emulate: the bytes of the body's instruction, looked up in its batch
    // function (guest ELF symbols) for kvm_emulate_insn's RIP, and how many
    // times one iteration runs it (software backends emulate guest CPL0 code,
    // one kvm_emulate_insn per instruction).
    std::vector<uint8_t> opcode = {};
    uint32_t per_iter = 0;
};
inline TraceKey traced_msr(uint32_t index) { return {TraceKey::Msr, index}; }
inline TraceKey traced_pio(uint16_t port) { return {TraceKey::Pio, port}; }
inline TraceKey traced_mmio(uint64_t gpa) { return {TraceKey::Mmio, gpa}; }
inline TraceKey traced_cpuid(uint32_t function) { return {TraceKey::Cpuid, function}; }
inline TraceKey traced_ipi() { return {TraceKey::ApicIpi, 0}; }
inline TraceKey traced_accept_irq() { return {TraceKey::AcceptIrq, 0}; }
inline TraceKey traced_emulated(std::vector<uint8_t> opcode, uint32_t per_iter = 1) {
    return {TraceKey::Emulate, 0, std::move(opcode), per_iter};
}
// A test that must not exit: none of the exit tracepoints fires in its batch.
inline TraceKey traced_no_exit() { return {TraceKey::NoExit, 0}; }
// A host page fault taken in kernel mode, `per_iter` an iteration: where a
// software backend's emulator performs the guest's access through the host
// mapping (kvm_pvm), a first touch faults there instead of in KVM's MMU.
inline TraceKey traced_host_fault(uint32_t per_iter) { return {TraceKey::HostFault, 0, {}, per_iter}; }

// What the host offers, for deciding skips.
struct HostContext {
    const kvm::System* sys = nullptr;
    vmm::Backend backend = vmm::Backend::Unknown;
    vmm::Vendor vendor = vmm::Vendor::Other;   // as the guest sees it
    std::vector<kvm_cpuid_entry2> cpuid;        // KVM_GET_SUPPORTED_CPUID
    std::optional<uint64_t> tsc_khz;            // KVM_GET_TSC_KHZ
    int host_cpus = 1;
    bool allow_invd = false;                    // --allow-invd
    uint32_t apic_mode = 0;                     // abi::ApicMode the tests will run in
};

struct Requirement {
    std::string what;
    // nullopt when met, else the reason the test is skipped.
    std::function<std::optional<std::string>(const HostContext&)> unmet;
};

// Guest body names; some tests use a different instruction per vendor.
struct Body {
    Body(const char* both) : intel(both), amd(both) {}
    Body(std::string i, std::string a) : intel(std::move(i)), amd(std::move(a)) {}
    std::string intel, amd;
};

struct TestSpec {
    std::string name;             // the kvm-unit-tests name where one exists
    std::string summary;
    Body body;
    Expect expect;
    TraceKey trace = {};
    std::vector<Requirement> needs = {};
    std::vector<std::string> aliases = {};
    FixtureFactory fixture = {};  // host-side devices or ioeventfds, if any
    uint32_t min_vcpus = 1;       // KUT's smp= for this test
    uint64_t max_iterations = 0;  // cap on the batch size, where the body uses a finite resource
    bool parallel = false;        // KUT's parallel=1: every vCPU runs the body at once
    bool internal = false;        // harness self-test: not in the default suite
    // Known misbehaviour of a backend, shown by `list` and with a failed result.
    std::vector<std::pair<vmm::Backend, std::string>> known_issues = {};
    // Backends it is known to livelock on: it still runs there, and is still
    // reported hung, but its watchdog waits kKnownLivelockWatchdogS, not 3 s.
    std::vector<vmm::Backend> livelocks_on = {};

    bool livelocks(vmm::Backend b) const { return std::ranges::find(livelocks_on, b) != livelocks_on.end(); }
    std::optional<std::string> known_issue(vmm::Backend b) const {
        for (const auto& [k, text] : known_issues)
            if (k == b) return text;
        return std::nullopt;
    }

    // Which guest body runs on this host, or nullopt when none fits.
    std::optional<std::string> body_for(const HostContext& h) const;
    std::optional<std::string> skip_reason(const HostContext& h) const;
};

// Requirements used by registry entries.
Requirement known_vendor();
Requirement capability(kvm::Cap cap);

// Met when KVM supports any of `features`. The guest re-checks what it really sees.
Requirement cpuid_any(std::vector<cpuid::Feature> features);
Requirement invd_opt_in();
Requirement x2apic_mode();

} // namespace eb::suite
