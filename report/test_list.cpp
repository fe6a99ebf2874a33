#include "report/test_list.h"

#include <algorithm>
#include <fmt/format.h>

#include "suite/kut_diff.h"
#include "suite/registry.h"
#include "vmm/host.h"

namespace eb::report {

std::string render_test_list(const suite::HostContext& ctx, bool all) {
    size_t w = 4;
    for (const auto& t : suite::registry())
        if (all || !t.internal) w = std::max(w, t.name.size());
    std::string out = fmt::format("{:<{}} {:<26} {}\n", "test", w, "expects per iteration", "what it exercises");
    auto more = [&](const std::string& line) { out += fmt::format("{:<{}}   {}\n", "", w, line); };
    for (const auto& t : suite::registry()) {
        if (t.internal && !all) continue;
        out += fmt::format("{:<{}} {:<26} {}\n", t.name, w, t.expect.describe(), t.summary);
        if (!t.aliases.empty()) more(fmt::format("alias: {}", fmt::join(t.aliases, ", ")));
        if (t.min_vcpus > 1 || t.parallel)
            more(fmt::format("{}{}", t.min_vcpus > 1 ? fmt::format("runs with at least {} vCPUs", t.min_vcpus) : "",
                             t.parallel ? "runs on every vCPU at once (KUT's parallel)" : ""));
        if (t.expect.may_be_zero) more("may measure no exit: " + t.expect.zero_why);
        if (auto why = t.skip_reason(ctx)) more("skipped on this host: " + *why);
        if (auto known = t.known_issue(ctx.backend)) more(fmt::format("on this host: {}", *known));
        for (const auto* d : suite::kut_differences_of(t.name))
            more(fmt::format("differs from vmexit.flat: {} (vmexit.c: {}); {}", d->exitbench, d->vmexit_c, d->effect));
    }
    out += "\nEvery test also differs from vmexit.flat in how it is timed and summarized: "
           "`list --kut-differences` prints all differences.\n";
    out += fmt::format("KVM backend here: {}\n", vmm::backend_name(ctx.backend));
    return out;
}

std::string render_kut_differences() { return suite::kut_differences_markdown(); }

} // namespace eb::report
