#include "cli/compare.h"
#include "cli/emulated.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>

#include "cli/app.h"
#include "cli/command.h"
#include "cli/kernel_ab.h"
#include "cli/module_ab.h"
#include "cli/compare_exit.h"
#include "cli/compare_host_profile.h"
#include "cli/compare_live.h"
#include "cli/emit.h"
#include "cli/history.h"
#include "cli/errors.h"
#include "cli/kselftest.h"
#include "lab/compare_saved.h"
#include "report/compare.h"
#include "lab/recipe_check.h"

namespace eb::cli {

std::vector<std::string> split_args(const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    bool have = false;
    char quote = 0;
    for (char c : s) {
        if (quote) {
            if (c == quote) quote = 0;
            else cur += c;
        } else if (c == '\'' || c == '"') {
            quote = c;
            have = true;
        } else if (c == ' ' || c == '\t') {
            if (have || !cur.empty()) out.push_back(cur);
            cur.clear();
            have = false;
        } else {
            cur += c;
        }
    }
    if (quote) throw UsageError("unbalanced quote in '" + s + "'");
    if (have || !cur.empty()) out.push_back(cur);
    return out;
}

void add_compare_options(CLI::App& cmd, CompareArgs& a) {
    // Every row, so that one a compare cannot honour is refused with its reason.
    add_run_options(cmd, a.common, kRun | kLive | kCalibrate | kWhere);
    cmd.get_option("tests")->description("tests to run live; or side A's saved result files");
    cmd.get_option("--repeats")->description("measured batches per configuration and round (default 3)");
    cmd.add_option("--vs", a.vs, "side B's saved result files: compare A1.json [A2.json ...] --vs B1.json [B2.json ...]");
    cmd.add_option("--a", a.a, "configuration A: run options as one string, e.g. '--guest-msr spec_ctrl=1'");
    cmd.add_option("--b", a.b, "configuration B");
    cmd.add_option("--config", a.configs, "LABEL=OPTIONS, repeatable, for more than two configurations");
    cmd.add_option("--rounds", a.rounds, "interleaved rounds; each runs every configuration once in a fresh VM "
                                         "(default 8; with --time-budget, until precise)");
    cmd.add_option("--time-budget", a.time_budget, "two-stage: a 5-round pilot fixes how many rounds reach "
                                                   "--precision (at most --rounds, default 1000); stop there or "
                                                   "after this long, never on the data seen after the pilot");
    cmd.add_option("--precision", a.precision, "with --time-budget: target half-width of the 95% CI of each ratio, in % (default 1)");
    cmd.add_option("--fail-if-slower", a.fail_if_slower,
                   "gate: exit 1 when a test (the baseline apart) is slower after Holm's correction over every test "
                   "compared AND its slowdown is shown to exceed PCT % (Holm-corrected one-sided test at alpha/2; for "
                   "one test: the interval's lower end is above +PCT %); else exit 4 when a test is not testable; "
                   "else 0. Every slower test is listed on stderr");
    cmd.add_option("--target", a.target, "saved results: the detectable difference, in %, that a calibration's plan "
                                         "of runs and rounds is for (default: the --fail-if-slower PCT, else 1)");
    cmd.add_option("--alpha", a.alpha, "significance level (default 0.05)");
    cmd.add_option("--seed", a.seed, "seed of the per-round order shuffle with three or more configurations");
    add_compare_host_profile_option(cmd, a.host_profile);
}

// A live compare saves each configuration's rounds as a run labelled LABEL/CONFIG.
void add_save_options(CLI::App& cmd, CompareArgs& a) {
    cmd.add_flag("--no-save", a.common.no_save, "do not save the configurations' runs to the history");
    cmd.add_option("--label", a.common.label, "save the runs as LABEL/CONFIG (default compare-TIMESTAMP/CONFIG)");
    cmd.add_option("--note", a.common.note, "a note saved with each configuration's run");
}

lab::RunPlan plan_config(const std::string& label, const std::vector<std::string>& words, const RunArgs& common) {
    RunArgs args = common;
    if (args.repeats.empty()) args.repeats = "3";  // per round: the round is the unit, not the repeat
    CLI::App parser;
    add_run_options(parser, args, kRun | kLive | kCalibrate, false);
    std::vector<std::string> rev(words.rbegin(), words.rend());
    try {
        parser.parse(rev);
    } catch (const CLI::ParseError& e) {
        throw UsageError("configuration " + label + ": " + e.what());
    }
    if (auto refused = given_outside(args, kLive); !refused.empty())
        throw UsageError(fmt::format("configuration {}: {} does not apply to a live compare: {}", label,
                                     refused[0]->name, refused[0]->not_live));
    args.tests = common.tests;
    auto plan = plan_run(args);
    plan.settings.sessions = 1;  // a round holds one session per configuration
    return plan;
}

// Saved results keep the settings they ran with: every run option, and the
// options of a live compare's schedule, would be ignored.
void reject_run_options(const CompareArgs& a) {
    auto refused = given_outside(a.common, 0);
    if (!refused.empty() && refused[0]->not_live)
        throw UsageError(fmt::format("{} does not apply to compare: {}", refused[0]->name, refused[0]->not_live));
    std::pair<bool, const char*> live_only[] = {
        {!a.rounds.empty(), "--rounds"}, {!a.time_budget.empty(), "--time-budget"},
        {!a.precision.empty(), "--precision"}, {!a.seed.empty(), "--seed"}};
    const char* name = refused.empty() ? nullptr : refused[0]->name;
    for (auto [set, n] : live_only)
        if (!name && set) name = n;
    if (name)
        throw UsageError(fmt::format("{} applies when compare runs configurations itself; saved results keep "
                                     "the settings they were run with", name));
}

namespace {

double parse_fraction(const std::string& opt, const std::string& v, double lo, double hi) {
    char* end = nullptr;
    errno = 0;
    double x = std::strtod(v.c_str(), &end);
    if (v.empty() || errno || !end || *end || !(x >= lo && x <= hi))
        throw UsageError(fmt::format("{} needs a number in [{:g}, {:g}], not '{}'", opt, lo, hi, v));
    return x;
}

bool looks_like_file(const std::string& s) {
    std::error_code ec;  // a symlink loop or an unreadable directory is a file the loader then refuses
    return s.find('/') != std::string::npos || s.ends_with(".json") || std::filesystem::exists(s, ec) ||
           std::filesystem::is_symlink(s, ec) || is_history_ref(s);
}

// Saved-result mode: which files are on which side, or nullopt for live mode.
std::optional<std::vector<std::vector<std::string>>> saved_sides(const CompareArgs& a) {
    const auto& in = a.common.tests;
    bool live = a.a || a.b || !a.configs.empty() || !a.preset.empty();
    if (!a.against.empty()) {
        if (a.against != "last") throw UsageError(fmt::format("--against takes 'last', not '{}'", a.against));
        if (live || !in.empty() || !a.vs.empty())
            throw UsageError("--against last picks both sides itself; name no tests, files or configurations");
        return against_last(a.db);
    }
    if (!a.vs.empty()) {
        if (live) throw UsageError("--vs compares saved results; --a/--b/--config run configurations live");
        if (in.empty()) throw UsageError("side A is empty: compare A1.json [A2.json ...] --vs B1.json [B2.json ...]");
        return std::vector<std::vector<std::string>>{in, a.vs};
    }
    if (live || in.empty() || !std::all_of(in.begin(), in.end(), looks_like_file)) return std::nullopt;
    for (const auto& p : in)
        if (std::error_code ec; !is_history_ref(p) && !std::filesystem::exists(p, ec) && !ec)
            throw UsageError(fmt::format("cannot read {}: no such file", p));
    if (in.size() != 2)
        throw UsageError("with several files a side, name side B after --vs: compare A1.json A2.json --vs B1.json B2.json "
                         "(a label:NAME is one side however many runs it holds)");
    return std::vector<std::vector<std::string>>{{in[0]}, {in[1]}};
}

} // namespace

// --fail-if-slower: every slower test on stderr whatever the outcome, then
// kTestFailed (a regression), kNotTestable (no regression, some test without
// a verdict) or kOk.
int apply_gate(const report::GateView& g) {
    for (const auto& s : g.slower)
        fmt::print(stderr, "exitbench: {}: {}\n", s.fails ? "REGRESSION" : "slower, within the gate", s.line);
    for (const auto& n : g.not_testable) fmt::print(stderr, "exitbench: --fail-if-slower: {}\n", n.line);
    fmt::print(stderr, "exitbench: {}\n", g.summary());
    switch (g.outcome) {
    case lab::GateOutcome::Regression: return kTestFailed;
    case lab::GateOutcome::NotTestable: return kNotTestable;
    case lab::GateOutcome::Clear: break;
    }
    return kOk;
}

namespace {

// Saved-result mode: options that only a live compare honours refused, then lab's compare.
lab::ComparisonReport compare_saved_sides(const CompareArgs& a, const std::vector<std::vector<std::string>>& refs,
                                            double alpha, std::vector<std::string>& header) {
    reject_run_options(a);
    if (a.common.no_save || !a.common.label.empty() || !a.common.note.empty())
        throw UsageError("--label, --note and --no-save apply when compare runs configurations itself; "
                         "saved results are in the history already");
    double target = lab::kPlanTarget;  // the gate's PCT is the difference that matters, unless named
    if (!a.target.empty()) target = parse_number("--target", a.target, 1e-3, 100) / 100;
    else if (!a.fail_if_slower.empty()) target = std::max(1e-5, parse_fraction("--fail-if-slower", a.fail_if_slower, 0, 1e6) / 100);
    return lab::compare_saved(refs, a.db, alpha, header, target);
}

} // namespace

int cmd_compare(const std::string& device, const CompareArgs& a, const std::atomic<bool>& interrupt) {
    double alpha = parse_fraction("--alpha", a.alpha, 1e-6, 0.5);
    std::optional<double> fail_pct;
    if (!a.fail_if_slower.empty()) fail_pct = parse_fraction("--fail-if-slower", a.fail_if_slower, 0, 1e6);
    auto out = plan_outputs(a.common.format, a.common.exports, a.common.json, report::Subject::Compare);
    bool live = a.a || a.b || !a.configs.empty() || !a.preset.empty();
    if (!a.common.kernel.empty() && !a.common.emulated) throw UsageError("--kernel IMAGE applies with --emulated");
    if (a.common.emulated && !live)
        throw UsageError("--emulated runs configurations in a guest (--a/--b, --config); saved results are "
                         "compared here as they are");
    if (a.common.emulated && a.preset.empty()) {  // recipe run relays itself (cli/recipe.cpp)
        if (!a.host_profile.empty()) throw UsageError("--host-profile samples this host; --emulated runs in a guest");
        return relay_emulated(a.common.argv, {"compare", a.common.kernel, a.common.json, a.common.format,
                                              !a.common.no_save, any_export(a.common.exports)}, interrupt);
    }
    if (!a.host_profile.empty() && !live)
        throw UsageError("--host-profile applies when compare runs configurations itself (--a/--b, --config)");

    report::Comparison doc;
    doc.command = a.common.argv;
    lab::LiveRuns ran;  // stays empty when saved results are compared: nothing new to save
    std::unique_ptr<lab::CompareHostProfiler> host;  // --host-profile
    if (auto refs = saved_sides(a)) {
        doc.report = compare_saved_sides(a, *refs, alpha, doc.header);
    } else {
        if (a.common.no_save && (!a.db.empty() || !a.common.label.empty() || !a.common.note.empty()))
            throw UsageError("--no-save does not save, so --db, --label and --note have nothing to apply to");
        if (!a.common.no_save) require_saveable(a.db);
        if (!a.target.empty())
            throw UsageError("--target plans saved runs from a calibration; a live compare sets its rounds with "
                             "--rounds, or --time-budget and --precision");
        if (!a.host_profile.empty()) host = start_compare_host_profiler(a.host_profile);
        doc.report = run_live(device, a, alpha, interrupt, doc.header, ran, host.get());
    }
    if (a.recipe_unmet) {
        lab::mark_unanswerable(doc.report, *a.recipe_unmet);
    }
    // The gate first: its REGRESSION lines and its exit status are decided
    // before an export, the save or a late signal can end the command, and
    // every format marks the regressed configurations.
    std::optional<int> gated;
    if (fail_pct) {
        doc.gate = report::gate_view(doc.report, *fail_pct);
        gated = apply_gate(*doc.gate);
    }
    // The HTML export gets the differential flame graphs; the tables follow
    // a table on stdout, beside any other format they go to stderr (as run's).
    double tsc_mhz = ran.rounds.empty() || ran.rounds[0].empty() ? 0 : ran.rounds[0][0].host.tsc_mhz;
    bool host_written = !host || write_compare_html(out.files, *host, doc, ran.labels, tsc_mhz);
    // An interrupted compare is partial: it would mislead a later one.
    std::vector<lab::LabelledRun> runs;
    if (!a.common.no_save && !interrupt.load()) runs = lab::runs_to_save(ran, a.common.label, a.common.note);
    std::vector<ToSave> saves;
    for (const auto& r : runs) saves.push_back({&r.run, r.label, r.note});
    auto done = emit(out, doc, a.db, saves);
    if (host) {
        auto tables = compare_host_tables(*host, ran.labels, tsc_mhz, alpha);
        if (a.common.format == "table") write_stdout(tables);
        else fmt::print(stderr, "{}", tables);
    }
    CompareEnd end{gated, done.written && host_written, done.saved, interrupt.load(), doc.report.tests.empty()};
    int rc = compare_exit_said(end, "the runs");
    return rc == kOk && ktap_stdout(a.common.format) ? skip_if_all_skipped(fail_if_any_failed(kOk, doc), doc) : rc;
}

namespace {

class CompareCommand : public Command {
public:
    explicit CompareCommand(CLI::App& root)
        : Command(root.add_subcommand(
              "compare", "A/B: configurations in interleaved rounds (--a/--b; the round is the unit), or saved runs "
                         "(A1.json ... --vs B1.json ...; the run, or the boot when the sides' boots differ, is the "
                         "unit; one run a side is not testable, and a calibration of this host, kernel and settings "
                         "plans the runs or rounds to make)")) {
        add_compare_options(*app_, args_);
        add_export_options(*app_, args_.common.exports, report::Subject::Compare, &args_.common.format);
        add_kernel_ab_options(*app_, kernels_);
        add_module_ab_options(*app_, module_);
        app_->add_option("--db", args_.db, "the history database: what label:/run: refer to, where a live compare "
                                           "saves its configurations' runs, and where one run a side finds its "
                                           "calibration (read only; none there: not testable)");
        add_save_options(*app_, args_);
        app_->add_option("--against", args_.against,
                         "'last': the newest saved run vs the newest earlier one with the same tests and host");
    }
    int run(const Context& ctx) override {
        args_.common.argv = ctx.argv;
        if (kernels_.active() && module_.active())
            throw UsageError("--module reloads a module on this host; --kernel-a/-b boot kernels: give one of them");
        if (kernels_.active()) return cmd_compare_kernels(args_, kernels_, ctx.interrupted);
        if (module_.active()) return cmd_compare_module(args_, module_, ctx.interrupted);
        return cmd_compare(ctx.device, args_, ctx.interrupted);
    }
    std::string stdout_format() const override { return args_.common.format; }
    bool emulable() const override { return !kernels_.active() && !module_.active(); }  // boots, or reloads, itself

private:
    CompareArgs args_;
    KernelAbArgs kernels_;
    ModuleAbArgs module_;
};

} // namespace

std::unique_ptr<Command> compare_command(CLI::App& root) { return std::make_unique<CompareCommand>(root); }

} // namespace eb::cli
