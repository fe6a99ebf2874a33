#include "cli/command.h"
#include "cli/emulated.h"
#include "cli/errors.h"

#include <algorithm>
#include <fmt/format.h>
#include <optional>

#include "cli/app.h"
#include "lab/run.h"
#include "suite/kut_diff.h"
#include "suite/registry.h"
#include "suite/runner.h"
#include "vmm/boot.h"

namespace eb::cli {

namespace {

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

class ListCommand : public Command {
public:
    explicit ListCommand(CLI::App& root)
        : Command(root.add_subcommand("list", "list the tests, what each expects, and skips on this host")) {
        app_->add_flag("--all", all_, "include the harness self-tests");
        app_->add_flag("--emulated", emulated_, "list what a boot of an installed kernel under QEMU TCG (a real "
                                                "kvm_amd inside) would run and skip");
        app_->add_option("--kernel", kernel_, "with --emulated: the kernel to boot (default: the newest "
                                              "/boot/vmlinuz-V with /lib/modules/V)");
        app_->add_flag("--kut-differences", kut_,
                       "print how the tests differ from kvm-unit-tests' vmexit.flat, as a markdown table");
        app_->allow_extras(false);
    }
    int run(const Context& ctx) override {
        if (!kernel_.empty() && !emulated_) throw UsageError("--kernel IMAGE applies with --emulated");
        if (emulated_) return relay_emulated(ctx.argv, {"list", kernel_, "", "table", false, false}, ctx.interrupted);
        return cmd_list(ctx.device, all_, kut_);
    }
    bool polls() const override { return emulated_; }  // a relay stops its boot in order

private:
    bool all_ = false, kut_ = false, emulated_ = false;
    std::string kernel_;
};

} // namespace

std::unique_ptr<Command> list_command(CLI::App& root) { return std::make_unique<ListCommand>(root); }

} // namespace eb::cli
