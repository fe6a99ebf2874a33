#include "cli/boot.h"
#include "cli/command.h"

#include <algorithm>

#include <fmt/format.h>

#include "cli/app.h"
#include "cli/emit.h"
#include "cli/errors.h"
#include "cli/history.h"
#include "cli/parse.h"
#include "report/sanitize.h"
#include "lab/catalog.h"

namespace eb::cli {

void add_machine_options(CLI::App& cmd, MachineArgs& m) {
    cmd.add_option("--initrd", m.initrd, "an initramfs unpacked before exitbench's own (its /init is exitbench's)");
    cmd.add_option("--modules", m.modules, "the kernel's module tree (default /lib/modules/RELEASE, the release read "
                                           "from the image's header)");
    cmd.add_option("--accel", m.accel, "auto (KVM with -cpu host where the host's kvm_amd/kvm_intel has nested=1: "
                                       "hardware; else TCG with an SVM CPU: emulated), kvm or tcg")
        ->capture_default_str();
    cmd.add_option("--cpus", m.cpus, "guest CPUs")->capture_default_str();
    cmd.add_option("--memory", m.memory, "guest memory, MiB")->capture_default_str();
    cmd.add_option("--boot-timeout", m.timeout, "a boot running longer is killed and counts as failed")
        ->capture_default_str();
}

CLI::App* add_boot_command(CLI::App& app, BootArgs& a) {
    auto* cmd = app.add_subcommand("boot", "boot a kernel image in QEMU and run 'exitbench ARGS' inside it, with KVM "
                                           "loaded there: boot --kernel IMAGE [options] -- run cpuid -n 64");
    cmd->add_option("--kernel", a.kernel, "the kernel image (a bzImage)")->required();
    cmd->add_option("--append", a.append, "added to the guest's kernel command line");
    cmd->add_option("--modprobe", a.modprobe, "'kvm_amd nested=1 avic=1': parameters of kvm, kvm_amd or kvm_intel "
                                              "in the guest; repeatable, one module each");
    add_machine_options(*cmd, a.machine);
    cmd->add_option("--add", a.files, "a file or folder copied into the guest at the same path (a program with the "
                                      "libraries it links); repeatable")
        ->allow_extra_args(false);  // one path each: a following -- is boot's
    cmd->add_flag("--exec", a.exec, "the words after -- are a command to run inside in place of exitbench (e.g. "
                                    "a KVM selftest); its output and exit status come back");
    cmd->add_option("args", a.args, "exitbench's arguments inside, after -- (default: run)");
    cmd->add_option("--db", a.db, "save the run to this history database");
    cmd->add_flag("--no-save", a.no_save, "do not save the run to the history");
    cmd->add_option("--label", a.label, "file the saved run under this label");
    cmd->add_option("--note", a.note, "a note saved with the run");
    cmd->add_option("--json", a.json, "write the run's JSON, with the boot's facts, to FILE");
    add_export_options(*cmd, a.exports, report::Subject::Run, nullptr);
    cmd->allow_extras(false);
    return cmd;
}

lab::BootSpec boot_spec(const std::string& kernel, const std::string& append, const std::vector<std::string>& modprobe,
                        const MachineArgs& m, const std::vector<std::string>& args) {
    lab::BootSpec s;
    s.kernel = kernel;
    s.append = append;
    s.modprobe = modprobe;
    s.initrd = m.initrd;
    s.modules_dir = m.modules;
    s.accel = m.accel;
    s.cpus = unsigned(parse_count("--cpus", m.cpus, 1, 64));
    s.memory_mb = unsigned(parse_count("--memory", m.memory, 256, 65536));
    s.timeout_s = parse_duration("--boot-timeout", m.timeout, 86400, 1);
    s.args = args;
    return s;
}

void print_lines(std::FILE* f, const std::string& text) {
    size_t at = 0;
    while (at < text.size()) {
        size_t nl = text.find('\n', at);
        std::string line = text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
        fmt::print(f, "{}\n", report::printable(line));
        at = nl == std::string::npos ? text.size() : nl + 1;
    }
}

std::string boot_line(const lab::BootPlan& p, const lab::BootOutcome& o) {
    std::string how = p.hardware ? "hardware" : lab::kEmulatedNote;
    if (!o.ok())
        return fmt::format("boot of {} failed after {:.1f} s: {}", p.release, o.seconds, report::printable(o.failure));
    return fmt::format("booted {} ({}; {}), boot id {}, in {:.1f} s", p.release, how, p.machine(), o.boot_id, o.seconds);
}

int cmd_boot(const BootArgs& a, const std::atomic<bool>& interrupt) {
    auto spec = boot_spec(a.kernel, a.append, a.modprobe, a.machine, a.args);
    spec.files = a.files;
    spec.exec = a.exec;
    auto plan = lab::plan_boot(spec);
    std::optional<Outputs> out;
    if (plan.want_result) {
        out = plan_outputs(a.format, a.exports, a.json, report::Subject::Run);
        if (!a.no_save) require_saveable(a.db);
    } else if (!a.json.empty() || !a.label.empty()) {
        throw UsageError("--json and --label apply when the guest runs 'exitbench run'");
    }
    note(plan.accel_why);
    lab::Booter booter(plan);
    auto o = booter.boot(interrupt);
    print_lines(stderr, o.err);
    if (o.ok()) note(boot_line(plan, o));
    else fmt::print(stderr, "exitbench: {}\n", boot_line(plan, o));
    if (o.interrupted) return kInterrupted;
    if (!o.ok() && !o.report) return kHost;
    if (!o.report) {
        write_stdout(o.out);
        return o.guest_rc < 0 ? kHost : o.guest_rc;
    }
    // Rendered here from the result that came back: its boot record makes
    // every format say how the exits were executed (emulated, hardware).
    std::vector<ToSave> saves;
    if (!a.no_save) saves.push_back({&*o.report, a.label, a.note});
    auto done = emit(*out, *o.report, a.db, saves);
    if (!done.written) return kHost;
    if (!done.saved) return kNotSaved;
    if (o.guest_rc < 0) return kHost;
    // Read here, as run does: a failure that is a known limit of how the
    // exits ran (QEMU TCG's gaps, for an emulated boot) is expected.
    const auto& rep = *o.report;
    return rep.interrupted ? kInterrupted : lab::has_unexpected_failure(rep) ? kTestFailed : kOk;
}

namespace {

class BootCommand : public Command {
public:
    explicit BootCommand(CLI::App& root) : Command(nullptr) { app_ = add_boot_command(root, args_); }
    int run(const Context& ctx) override { return cmd_boot(args_, ctx.interrupted); }
    bool emulable() const override { return false; }  // QEMU boots without /dev/kvm

private:
    BootArgs args_;
};

} // namespace

std::unique_ptr<Command> boot_command(CLI::App& root) { return std::make_unique<BootCommand>(root); }

} // namespace eb::cli
