// `exitbench list`: the tests and what this host makes of them.
#include <string>

#include "cli/app.h"
#include "cli/command.h"
#include "cli/emit.h"
#include "cli/emulated.h"
#include "cli/errors.h"
#include "lab/host_probe.h"
#include "report/test_list.h"

namespace eb::cli {

namespace {

int cmd_list(const std::string& device, bool all, bool kut_differences) {
    if (kut_differences) {  // docs/kut-differences.md's table: needs no /dev/kvm
        write_stdout(report::render_kut_differences());
        return kOk;
    }
    auto host = lab::probe_host_context(device);
    write_stdout(report::render_test_list(host.ctx, all));
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
