#include "cli/kernel_ab.h"
#include "cli/command.h"
#include "lab/run.h"

#include <ctime>
#include <filesystem>
#include <fmt/format.h>

#include "cli/app.h"
#include "cli/compare_exit.h"
#include "cli/emit.h"
#include "cli/errors.h"
#include "cli/history.h"
#include "cli/kernel_kexec.h"
#include "cli/parse.h"
#include "cli/run_options.h"
#include "lab/boots_compared.h"
#include "lab/kernel_ab.h"
#include "report/compare.h"
#include "report/sanitize.h"

namespace eb::cli {

void add_kernel_ab_options(CLI::App& cmd, KernelAbArgs& k) {
    cmd.add_option("--kernel-a", k.kernel_a, "host-kernel A/B: side A's kernel image, booted in QEMU (see 'boot'); "
                                             "the boot is the unit");
    cmd.add_option("--kernel-b", k.kernel_b, "side B's kernel image (may be A's, with another --append-b)");
    cmd.add_option("--append-a", k.append_a, "side A's added kernel command line");
    cmd.add_option("--append-b", k.append_b, "side B's added kernel command line");
    cmd.add_option("--modprobe-a", k.modprobe_a, "side A's 'kvm_amd PARAM=V ...' in the guest; repeatable");
    cmd.add_option("--modprobe-b", k.modprobe_b, "side B's 'kvm_amd PARAM=V ...' in the guest; repeatable");
    cmd.add_option("--boots", k.boots, "boots a side, in the order A B B A A B ..., one run each (3 or more for a "
                                       "verdict)");
    cmd.add_option("--guest-run", k.guest_run, "more options for the run inside each boot, as one string (compare's "
                                               "run options, -n, -r, --sessions ..., go there too)");
    add_machine_options(cmd, k.machine);
    add_kexec_options(cmd, k);
}

namespace {

std::string eta_text(double s) {
    if (s < 0) return "ETA unknown";
    auto t = long(s + 0.5);
    return fmt::format("ETA {}:{:02d}", t / 60, t % 60);
}

// A progress line before each boot and a result line after it.
lab::AbObserver progress(const std::vector<const lab::BootPlan*>& plans, const std::vector<std::string>& names) {
    lab::AbObserver obs;
    obs.starting = [names](unsigned slot, unsigned total, int side, double eta) {
        note(fmt::format("boot {} of {} ({}), {}", slot, total, report::printable(names[size_t(side)]), eta_text(eta)));
    };
    obs.done = [plans, names](const lab::BootAttempt& a, const lab::BootOutcome& o) {
        std::string line = fmt::format("boot {}{} ({}): {}{}", a.slot, a.retry ? " (retry)" : "",
                                       names[size_t(a.side)].substr(0, names[size_t(a.side)].find(':')),
                                       boot_line(*plans[size_t(a.side)], o),
                                       o.ok() || a.retry || o.interrupted ? "" : "; retrying once");
        if (o.ok()) note(line);  // a failed boot is said under --quiet too
        else fmt::print(stderr, "exitbench: {}\n", line);
    };
    return obs;
}

} // namespace

// A compare with no live or saved-mode option of its own: the run options
// go to the run inside each boot.
void reject_other_modes(const CompareArgs& c) {
    if (c.a || c.b || !c.configs.empty() || !c.vs.empty() || !c.against.empty())
        throw UsageError("--kernel-a/--kernel-b boot kernels; --a/--b, --config, --vs and --against do not apply");
    reject_schedule(c, "--kernel-a/--kernel-b", "boot");
}

void reject_schedule(const CompareArgs& c, const std::string& mode, const std::string& unit) {
    std::pair<bool, const char*> given[] = {
        {!c.rounds.empty(), "--rounds"}, {!c.time_budget.empty(), "--time-budget"}, {!c.precision.empty(), "--precision"},
        {!c.seed.empty(), "--seed"},     {!c.host_profile.empty(), "--host-profile"},
        {!c.common.profile_out.empty(), "--profile-out"}};
    for (auto [set, name] : given)
        if (set) throw UsageError(fmt::format("{} does not apply to {}: each {} holds one run, and the {} is the unit",
                                              name, mode, unit, unit));
}

std::vector<std::string> guest_run_args(const std::vector<std::string>& tests, const std::string& guest_run,
                                        const std::vector<std::string>& run_opts) {
    std::vector<std::string> args{"run"};
    args.insert(args.end(), tests.begin(), tests.end());
    args.insert(args.end(), run_opts.begin(), run_opts.end());
    auto more = split_args(guest_run);
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

int cmd_compare_kernels(const CompareArgs& c, const KernelAbArgs& k, const std::atomic<bool>& interrupt) {
    if (k.backend != "qemu" && k.backend != "kexec")
        throw UsageError(fmt::format("--backend takes qemu or kexec, not '{}'", k.backend));
    if (k.kexec()) return cmd_compare_kexec(c, k);
    reject_other_modes(c);
    if (k.kernel_a.empty() || k.kernel_b.empty()) throw UsageError("a host-kernel A/B needs --kernel-a and --kernel-b");
    if (k.boots.empty()) throw UsageError("--kernel-a/--kernel-b need --boots N (boots a side; 3 or more for a verdict)");
    unsigned n = unsigned(parse_count("--boots", k.boots, 1, 1000));
    if (k.kernel_a == k.kernel_b && k.append_a == k.append_b && k.modprobe_a == k.modprobe_b)
        throw UsageError("sides A and B boot the same kernel, command line and parameters: nothing to compare");
    double alpha = parse_number("--alpha", c.alpha, 1e-6, 0.5);
    std::optional<double> fail_pct;
    if (!c.fail_if_slower.empty()) fail_pct = parse_number("--fail-if-slower", c.fail_if_slower, 0, 1e6);
    auto out = plan_outputs(c.common.format, c.common.exports, c.common.json, report::Subject::Compare);
    if (!c.common.no_save) require_saveable(c.db);
    auto args = guest_run_args(c.common.tests, k.guest_run, run_words(c.common, kRun));
    auto plan_a = lab::plan_boot(boot_spec(k.kernel_a, k.append_a, k.modprobe_a, k.machine, args));
    auto plan_b = lab::plan_boot(boot_spec(k.kernel_b, k.append_b, k.modprobe_b, k.machine, args));
    lab::Booter boot_a(std::move(plan_a)), boot_b(std::move(plan_b));
    const auto& plan = boot_a.plan();
    note(plan.accel_why);
    std::vector<std::string> labels{"A: " + lab::describe(k.kernel_a, k.append_a, k.modprobe_a),
                                    "B: " + lab::describe(k.kernel_b, k.append_b, k.modprobe_b)};
    auto done = lab::boot_and_compare(
        lab::counterbalanced(n), [&](int side) { return (side ? boot_b : boot_a).boot(interrupt); }, labels, alpha,
        !plan.hardware || !boot_b.plan().hardware, interrupt, progress({&plan, &boot_b.plan()}, labels));
    std::string base = c.common.label.empty() ? "kernel-ab-" + lab::utc_now("%Y%m%dT%H%M%SZ") : c.common.label;
    std::vector<ToSave> saves;
    for (int s = 0; s < 2; ++s)
        for (const auto& r : done.runs.sides[s])
            if (!c.common.no_save) saves.push_back({&r, base + (s ? "/B" : "/A"), c.common.note});
    if (!done.cmp) {  // what finished is kept all the same
        fmt::print(stderr, "exitbench: {}\n", report::printable(done.why_not));
        for (const auto& line : done.runs.short_sides) fmt::print(stderr, "exitbench: {}\n", report::printable(line));
        bool saved = true;
        for (const auto& s : saves) saved = save_run(c.db, *s.run, s.label, s.note) && saved;
        return done.runs.interrupted ? kInterrupted : saved ? kNotTestable : kNotSaved;
    }
    report::Comparison doc;
    doc.report = std::move(*done.cmp);
    doc.header = lab::boot_header(labels, done.sides, plan);
    return conclude_boots(doc, out, c.db, saves, fail_pct, done.runs.interrupted, c.common.no_save ? "" : base);
}

int conclude_boots(report::Comparison& doc, const Outputs& out, const std::string& db, const std::vector<ToSave>& saves,
                   std::optional<double> fail_pct, bool interrupted, const std::string& base) {
    std::optional<int> gated;  // first: no export, save or signal after it can hide a regression
    if (fail_pct) {
        doc.gate = report::gate_view(doc.report, *fail_pct);
        gated = apply_gate(*doc.gate);
    }
    auto done = emit(out, doc, db, saves);
    if (!base.empty() && done.saved)
        note(fmt::format("saved the boots as label:{}/A and label:{}/B", base, base));
    CompareEnd end{gated, done.written, done.saved, interrupted, doc.report.tests.empty()};
    return compare_exit_said(end, "the boots");
}

CLI::App* add_bisect_command(CLI::App& app, BisectArgs& a) {
    auto* cmd = app.add_subcommand("bisect-step", "for git bisect run: boot --kernel N times, compare with the saved "
                                                  "boots of --good LABEL (the boot as the unit); exit 0 good, 1 bad "
                                                  "(slower beyond --fail-if-slower), 125 not testable, 128 to stop "
                                                  "the bisection (bad usage)");
    cmd->add_option("--good", a.good, "the history label holding the good kernel's boots (e.g. saved by compare "
                                      "--kernel-a or boot --label)")->required();
    cmd->add_option("--kernel", a.kernel, "the kernel image under test")->required();
    cmd->add_option("--append", a.append, "added to its command line");
    cmd->add_option("--modprobe", a.modprobe, "'kvm_amd PARAM=V ...' in the guest; repeatable");
    cmd->add_option("--boots", a.boots, "boots of this kernel (3 or more for a verdict)")->capture_default_str();
    cmd->add_option("--fail-if-slower", a.fail_if_slower, "bad when a test is shown slower than this, in %")
        ->capture_default_str();
    cmd->add_option("--alpha", a.alpha, "significance level")->capture_default_str();
    cmd->add_option("--guest-run", a.guest_run, "more run options inside each boot, as one string (the run options "
                                                "themselves are taken directly, as compare takes them; kept for "
                                                "scripts written before)");
    cmd->add_option("--db", a.db, "the history database holding --good");
    cmd->add_option("--label", a.label, "save this kernel's boots under LABEL (default bisect-RELEASE)");
    cmd->add_flag("--no-save", a.no_save, "do not save this kernel's boots");
    add_machine_options(*cmd, a.machine);
    // The tests and every run option, from the one table, as compare --kernel-a/-b takes them.
    add_run_options(*cmd, a.run, kRun, false);
    cmd->get_option("tests")->description("the tests to run (as saved under --good)")->required();
    cmd->allow_extras(false);
    return cmd;
}

namespace {

// What the gate decided, as git bisect run reads it.
int bisect_verdict(const lab::ComparisonReport& cmp, double pct) {
    auto g = report::gate_view(cmp, pct);
    int rc = apply_gate(g);  // the lines on stderr
    if (rc == kTestFailed) return kBisectBad;
    if (rc == kOk && g.family > 0) return kBisectGood;
    return kBisectSkip;
}

} // namespace

int cmd_bisect_step(const BisectArgs& a, const std::atomic<bool>& interrupt) {
    unsigned n = 0;
    double pct = 0, alpha = 0;
    std::vector<lab::RunReport> good;
    std::optional<lab::Booter> booter;
    try {  // the step's own input: a mistake here stops the bisection instead of marking a commit
        n = unsigned(parse_count("--boots", a.boots, 1, 1000));
        pct = parse_number("--fail-if-slower", a.fail_if_slower, 0, 1e6);
        alpha = parse_number("--alpha", a.alpha, 1e-6, 0.5);
        plan_run(a.run);  // the run options' values, checked here: the guest would refuse them after the boot
        for (const auto& ref : expand_ref(a.db, "label:" + a.good)) good.push_back(load_result(ref, a.db));
        if (!a.no_save) require_saveable(a.db);
    } catch (const std::exception& e) {
        fmt::print(stderr, "exitbench: bisect-step: {} (stopping the bisection)\n", report::printable(e.what()));
        return kBisectAbort;
    }
    try {  // this kernel cannot be booted: skip the commit
        booter.emplace(lab::plan_boot(boot_spec(a.kernel, a.append, a.modprobe, a.machine,
                                                guest_run_args(a.run.tests, a.guest_run, run_words(a.run, kRun)))));
    } catch (const std::exception& e) {
        fmt::print(stderr, "exitbench: bisect-step: not testable: {}\n", report::printable(e.what()));
        return kBisectSkip;
    }
    const auto& plan = booter->plan();
    note(plan.accel_why);
    std::vector<std::string> labels{"label:" + a.good, "candidate: " + lab::describe(a.kernel, a.append, a.modprobe)};
    auto done = lab::boot_and_compare(
        std::vector<int>(n, 0), [&](int) { return booter->boot(interrupt); }, labels, alpha, !plan.hardware, interrupt,
        progress({&plan}, {labels[1]}), good);
    std::string label = a.label.empty() ? "bisect-" + plan.release : a.label;
    bool saved = true;
    if (!a.no_save)
        for (const auto& r : done.runs.sides[0]) saved = save_run(a.db, r, label, "") && saved;
    if (done.runs.interrupted) return kInterrupted;
    if (done.runs.sides[0].size() < n) {
        fmt::print(stderr, "exitbench: bisect-step: not testable: {} of {} boots finished\n", done.runs.sides[0].size(),
                   n);
        return kBisectSkip;
    }
    if (!done.cmp) return kBisectSkip;
    report::Comparison doc;
    doc.report = std::move(*done.cmp);
    doc.header = lab::boot_header(labels, done.sides, plan);
    emit(plan_outputs("table", {}, "", report::Subject::Compare), doc);
    int rc = bisect_verdict(doc.report, pct);
    fmt::print(stderr, "exitbench: bisect-step: {}{}\n",
               rc == kBisectGood ? "good" : rc == kBisectBad ? "bad" : "not testable (no verdict)",
               saved || a.no_save ? "" : " (the boots could not be saved)");
    return rc;
}

namespace {

class BisectStepCommand : public Command {
public:
    explicit BisectStepCommand(CLI::App& root) : Command(nullptr) { app_ = add_bisect_command(root, args_); }
    int run(const Context& ctx) override { return cmd_bisect_step(args_, ctx.interrupted); }
    bool emulable() const override { return false; }  // it boots its kernel itself

private:
    BisectArgs args_;
};

} // namespace

std::unique_ptr<Command> bisect_step_command(CLI::App& root) { return std::make_unique<BisectStepCommand>(root); }

} // namespace eb::cli
