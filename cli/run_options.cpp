#include "cli/run_options.h"

#include <fmt/format.h>

#include "cli/run.h"

namespace eb::cli {

namespace {

constexpr unsigned kAll = kRun | kLive | kCalibrate;

std::vector<RunOption> make_table() {
    using A = RunArgs;
    const char* one_session = "each round is one session";
    return {
        {"-n,--iterations", "--iterations", &A::iterations, "N", kAll, "1000", nullptr,
         "fixed iterations per batch (default: adaptive)"},
        {"-r,--repeats", "--repeats", &A::repeats, "N", kAll, "5", nullptr,
         fmt::format("measured batches per test and session (default {}; 3 per round in a live compare)",
                     kDefaultRepeats)},
        {"--sessions", "--sessions", &A::sessions, "N", kRun | kCalibrate, "2", one_session,
         fmt::format("run every test in N fresh VMs, shuffled across tests; with N >= 2 the interval describes "
                     "run-to-run reproducibility (default {})", kDefaultSessions)},
        {"--time-goal", "--time-goal", &A::time_goal, "DURATION", kAll, "10ms", nullptr,
         "adaptive batch duration, e.g. 20ms (default)"},
        {"--warmup", "--warmup", &A::warmup, "N", kAll, "2", nullptr,
         "N more discarded batches of the final size (default 0): warm-up is already automatic, batches double "
         "until one takes --time-goal and that one is discarded too"},
        {"--cpu", "--cpu", &A::cpu, "CPU", kAll, "0", nullptr, "pin vCPU 0's thread to this host CPU"},
        {"--smp", "--smp", &A::smp, "N", kAll, "2", nullptr,
         "vCPUs per VM (default 1; tests that need more get their minimum)"},
        {"--pin", "--pin", &A::pin, "CPU-LIST", kAll, "auto", nullptr,
         "host CPU per vCPU, e.g. 0,1 or 2-5, or 'auto'"},
        {"--apic", "--apic", &A::apic, "MODE", kAll, "xapic", nullptr,
         "APIC mode: auto (x2APIC when offered, as KUT), xapic, x2apic"},
        {"--watchdog", "--watchdog", &A::watchdog, "DURATION", kAll, "2s", nullptr,
         "declare a guest hung after this long without progress (default 3s)"},
        {"--no-baseline", "--no-baseline", &A::no_baseline, "", kAll, "", nullptr, "do not add the baseline test"},
        {"--retry-hung", "--retry-hung", &A::retry_hung, "", kRun | kCalibrate, "",
         "a round has no later session to retry in",
         "rerun in later sessions a test that hung (by default a hang is learnt once: the test is not rerun, and "
         "its result names the session it hung in)"},
        {"--no-trace-verify", "--no-trace-verify", &A::no_trace_verify, "", kAll, "", nullptr,
         "leave exits the stats fd cannot count unverified, instead of counting kvm_msr/kvm_pio/kvm_mmio over a "
         "separate batch per test"},
        {"--guest-msr", "--guest-msr", &A::guest_msrs, "MSR=VALUE", kAll, "spec_ctrl=1", nullptr,
         "MSR=VALUE the guest writes first (repeatable), e.g. spec_ctrl=0x401"},
        {"--guest-efer", "--guest-efer", &A::guest_efer, "BITS", kAll, "nx=off", nullptr,
         "guest EFER bits, e.g. nx=off or nx=on,sce=off"},
        {"--cpuid", "--cpuid", &A::cpuid, "EDITS", kAll, "-x2apic", nullptr,
         "CPUID edits for the guest: --cpuid=-x2apic,+rtm or --cpuid x2apic=off"},
        {"--allow-invd", "--allow-invd", &A::allow_invd, "", kAll, "", nullptr,
         "let the invd test run (unsafe on bare-metal-like setups)"},
        {"--per-exit", "--per-exit", &A::per_exit, "", kRun | kLive, "", nullptr,
         "time every iteration on its own: percentiles and a histogram (at most 16 Mi samples per test)"},
        {"--profile", "--profile", &A::profile, "", kRun | kLive, "", nullptr,
         "record kvm tracepoints meanwhile: host-side handling time per test"},
        {"--emulated", "--emulated", &A::emulated, "", kRun | kWhere, "", "it applies to the whole compare "
         "(compare --emulated), not to one configuration",
         "no /dev/kvm needed: run in a boot of an installed kernel under QEMU TCG with an SVM CPU (a real kvm_amd "
         "inside); every output says emulated"},
        {"--kernel", "--kernel", &A::kernel, "IMAGE", kRun | kWhere, "/boot/vmlinuz", "it applies to the whole "
         "compare (compare --emulated --kernel IMAGE), not to one configuration",
         "with --emulated: the kernel to boot (default: the newest /boot/vmlinuz-V with /lib/modules/V)"},
        {"--profile-out", "--profile-out", &A::profile_out, "FILE", kRun | kLive, "", nullptr,
         "with --profile: keep the trace in FILE for 'profile report' (then every kvm event is recorded, "
         "kvm_emulate_insn too, which slows software backends)"},
    };
}

} // namespace

std::span<const RunOption> run_options_table() {
    static const std::vector<RunOption> table = make_table();
    return table;
}

const RunOption* find_run_option(const std::string& long_name) {
    std::string want = long_name.starts_with("--") ? long_name : "--" + long_name;
    for (const auto& o : run_options_table())
        if (want == o.name) return &o;
    return nullptr;
}

bool given(const RunOption& o, const RunArgs& a) {
    return std::visit(
        [&](auto field) {
            const auto& v = a.*field;
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, bool>) return v;
            else if constexpr (std::is_same_v<T, std::string>) return !v.empty() && !(field == &RunArgs::apic && v == "auto");
            else return !v.empty();
        },
        o.field);
}

std::vector<std::string> run_words(const RunArgs& a, unsigned scope) {
    std::vector<std::string> w;
    for (const auto& o : run_options_table()) {
        if (!(o.scopes & scope) || !given(o, a)) continue;
        std::visit(
            [&](auto field) {
                const auto& v = a.*field;
                using T = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<T, bool>) w.push_back(o.name);
                else if constexpr (std::is_same_v<T, std::string>) w.push_back(fmt::format("{}={}", o.name, v));
                else
                    for (const auto& x : v) w.push_back(fmt::format("{}={}", o.name, x));
            },
            o.field);
    }
    return w;
}

std::vector<const RunOption*> given_outside(const RunArgs& a, unsigned scope) {
    std::vector<const RunOption*> out;
    for (const auto& o : run_options_table())
        if (given(o, a) && !(o.scopes & scope)) out.push_back(&o);
    return out;
}

} // namespace eb::cli
