#include "cli/list.h"

#include <algorithm>
#include <fmt/format.h>
#include <optional>

#include "cli/app.h"
#include "env/host_env.h"
#include "lab/run.h"
#include "suite/kut_diff.h"
#include "suite/registry.h"
#include "suite/runner.h"
#include "vmm/boot.h"

namespace eb::cli {

int cmd_list(const std::string& device, bool all, bool kut_differences) {
    if (kut_differences) {  // docs/kut-differences.md's table: needs no /dev/kvm
        fmt::print("{}", suite::kut_differences_markdown());
        return kOk;
    }
    auto sys = lab::open_kvm(device);
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
        for (const auto* d : suite::kut_differences_of(t.name))
            fmt::print("{:<{}}   differs from vmexit.flat: {} (vmexit.c: {}); {}\n", "", w, d->exitbench, d->vmexit_c,
                       d->effect);
    }
    fmt::print("\nEvery test also differs from vmexit.flat in how it is timed and summarized: "
               "`list --kut-differences` prints all differences.\n");
    fmt::print("KVM backend here: {}\n", vmm::backend_name(ctx.backend));
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

} // namespace eb::cli
