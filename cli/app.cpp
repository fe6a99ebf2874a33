#include "cli/app.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <fmt/format.h>
#include <optional>
#include <system_error>
#include <unistd.h>

#include "cli/boot.h"
#include "cli/kernel_ab.h"
#include "cli/calibrate.h"
#include "cli/compare.h"
#include "cli/completion.h"
#include "cli/emit.h"
#include "cli/emulated.h"
#include "cli/errors.h"
#include "cli/export.h"
#include "cli/help.h"
#include "cli/history.h"
#include "cli/host_profile.h"
#include "cli/import.h"
#include "cli/kselftest.h"
#include "cli/kselftest_install.h"
#include "cli/list.h"
#include "cli/merge.h"
#include "cli/profile.h"
#include "cli/recipe.h"
#include "cli/run.h"
#include "lab/emulated.h"
#include "lab/run.h"
#include "lab/suggest.h"
#include "lab/version.h"
#include "profile/record.h"
#include "report/exporter.h"
#include "report/sanitize.h"
#include "sys/error.h"

namespace eb::cli {

namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<bool> g_polling{false};  // the command checks g_interrupted and stops in order
std::atomic<int> g_signals{0};

// SIGINT, SIGTERM and SIGHUP all ask for an orderly stop: finished results
// are written and the ftrace instance is removed. A second signal ends the
// process at once only when no instance is left to remove; otherwise it would
// leave kvm tracepoints enabled on the host, so it only says why it waits.
void on_stop_signal(int sig) {
    // A command with nothing to finish (a read, a quick write) stops at
    // once, with the exit status that says so.
    if (!g_polling.load()) _exit(kInterrupted);
    if (g_signals.fetch_add(1) == 0) {
        g_interrupted.store(true);
        return;
    }
    if (!profile::instance_active()) _exit(128 + sig);
    static const char msg[] = "exitbench: stopping: removing the ftrace instance first "
                              "(SIGKILL would leave it behind until the next run)\n";
    ssize_t n = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)n;
}

// The one line a failed command last said, for KTAP's plan (kselftest.h).
std::string g_error_line;

int say_error(const std::string& line, int rc) {
    g_error_line = line;
    fmt::print(stderr, "exitbench: {}\n", line);
    return rc;
}

void install_stop_handlers() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

// A live compare saves each configuration's rounds as a run labelled LABEL/CONFIG.
void add_save_options(CLI::App& cmd, CompareArgs& a) {
    cmd.add_flag("--no-save", a.common.no_save, "do not save the configurations' runs to the history");
    cmd.add_option("--label", a.common.label, "save the runs as LABEL/CONFIG (default compare-TIMESTAMP/CONFIG)");
    cmd.add_option("--note", a.common.note, "a note saved with each configuration's run");
}

// Every command, its options, and where CLI11 leaves what it parsed.
struct Commands {
    CLI::App app{"exitbench: what does one VM exit cost? A KVM VM-exit laboratory."};
    std::string device = "/dev/kvm";
    bool quiet = false;
    bool list_all = false, list_kut = false, list_emulated = false;
    std::string list_kernel;
    CLI::App *list, *env, *recipe, *recipe_run, *recipe_show, *compare, *run, *completion, *calibrate, *boot;
    CLI::App* kselftest_install;
    KselftestInstallArgs kselftest_args;
    BootArgs boot_args;
    KernelAbArgs kernel_ab;
    BisectArgs bisect_args;
    CLI::App* bisect;
    std::string shell;
    HistoryArgs history_args;
    HistoryCommands history;
    ImportArgs import_args;
    ImportCommands import;
    std::string recipe_name, recipe_show_name;
    CompareArgs recipe_args, compare_args;
    CalibrateArgs calibrate_args;
    ProfileArgs profile_args;
    ProfileCommands profile;
    RunArgs run_args;
    HostProfileArgs host_profile_args;
    MergeArgs merge_args;
    ReportCommands report;

    Commands() {
        app.set_version_flag("--version", std::string("exitbench ") + lab::version() +
                                              (*lab::git_describe() ? std::string(" (git ") + lab::git_describe() + ")" : ""));
        app.require_subcommand(0, 1);
        app.allow_extras();  // so an unknown command gets our message, not CLI11's
        app.add_option("--device", device, "KVM device node")->capture_default_str();
        app.add_flag("-q,--quiet", quiet, "no progress and no notes on stderr: only warnings, errors and the gate's lines")
            ->each([](const std::string&) { set_quiet(true); });
        // Root options after a command too (`run --device X`): subcommands
        // created from here on inherit it.
        app.fallthrough();
        add_list_and_env();
        add_recipe();
        profile = add_profile_commands(app, profile_args);
        add_compare();
        calibrate = add_calibrate_command(app, calibrate_args);
        kselftest_install = add_kselftest_install_command(app, kselftest_args);
        boot = add_boot_command(app, boot_args);
        bisect = add_bisect_command(app, bisect_args);
        history = add_history_commands(app, history_args);
        import = add_import_commands(app, import_args);
        completion = app.add_subcommand("completion", "print a bash or zsh completion script");
        completion->add_option("shell", shell, "bash or zsh")->required();
        report = add_report_commands(app, merge_args);
        add_run();
        finish_help(app);
    }

    void add_list_and_env() {
        list = app.add_subcommand("list", "list the tests, what each expects, and skips on this host");
        list->add_flag("--all", list_all, "include the harness self-tests");
        list->add_flag("--emulated", list_emulated, "list what a boot of an installed kernel under QEMU TCG (a real "
                                                    "kvm_amd inside) would run and skip");
        list->add_option("--kernel", list_kernel, "with --emulated: the kernel to boot (default: the newest "
                                                  "/boot/vmlinuz-V with /lib/modules/V)");
        list->add_flag("--kut-differences", list_kut,
                       "print how the tests differ from kvm-unit-tests' vmexit.flat, as a markdown table");
        list->allow_extras(false);
        env = app.add_subcommand("env", "print the host environment a result records");
        env->allow_extras(false);
    }

    void add_recipe() {
        recipe = app.add_subcommand("recipe", "known experiments (BHI SPEC_CTRL, EFER switching, IPI paths) as ready comparisons");
        recipe->require_subcommand(1);
        recipe->add_subcommand("list", "list the recipes and the question each answers")->allow_extras(false);
        recipe_show = recipe->add_subcommand("show", "one recipe: its question, the seed's figures, configurations, "
                                                     "preconditions (checked here) and the manual steps left");
        recipe_show->add_option("name", recipe_show_name, "the recipe (see 'recipe list')")->required();
        recipe_run = recipe->add_subcommand("run", "run one recipe: its configurations compared, interleaved");
        recipe_run->add_option("name", recipe_name, "the recipe (see 'recipe list')")->required();
        add_compare_options(*recipe_run, recipe_args);
        recipe_run->add_option("--db", recipe_args.db, "save the configurations' runs to this history database");
        add_save_options(*recipe_run, recipe_args);
        add_export_options(*recipe_run, recipe_args.common.exports, report::Subject::Compare, &recipe_args.common.format);
        // A recipe brings its own tests and configurations: hide what cannot apply.
        for (const char* name : {"tests", "--a", "--b", "--config", "--vs"})
            recipe_run->remove_option(recipe_run->get_option(name));
    }

    void add_compare() {
        compare = app.add_subcommand("compare", "A/B: configurations in interleaved rounds (--a/--b; the round is "
                                                "the unit), or saved runs (A1.json ... --vs B1.json ...; the run, or "
                                                "the boot when the sides' boots differ, is the unit; one run a side "
                                                "is not testable, and a calibration of this host, kernel and "
                                                "settings plans the runs or rounds to make)");
        add_compare_options(*compare, compare_args);
        add_export_options(*compare, compare_args.common.exports, report::Subject::Compare, &compare_args.common.format);
        add_kernel_ab_options(*compare, kernel_ab);
        compare->add_option("--db", compare_args.db, "the history database: what label:/run: refer to, where "
                                                     "a live compare saves its configurations' runs, and where one "
                                                     "run a side finds its calibration (read only; none there: not "
                                                     "testable)");
        add_save_options(*compare, compare_args);
        compare->add_option("--against", compare_args.against,
                            "'last': the newest saved run vs the newest earlier one with the same tests and host");
    }

    void add_run() {
        run = app.add_subcommand("run", "run tests (all of the default suite when none are named)");
        add_run_options(*run, run_args, kRun | kWhere);
        add_export_options(*run, run_args.exports, report::Subject::Run, &run_args.format);
        run->add_option("--seed", run_args.seed, "seed of the shuffled test order with --sessions (default: random, saved)");
        run->add_option("--db", run_args.db, "save to this history database (default $XDG_DATA_HOME/exitbench/history.db)");
        run->add_flag("--no-save", run_args.no_save, "do not save the run to the history");
        run->add_option("--label", run_args.label, "file the saved run under this label, e.g. before-v2");
        run->add_option("--note", run_args.note, "a note saved with the run");
        add_host_profile_options(*run, host_profile_args);
    }

    // The --format of the command given ("" for one without).
    std::string stdout_format() const {
        if (*run) return run_args.format;
        if (*compare) return compare_args.common.format;
        if (*recipe_run) return recipe_args.common.format;
        return "";
    }
};

// " (did you mean '--repeats'?)" for the first word of argv that looks like a
// misspelled option of the command typed (or of a command, at the top).
std::string typo_hint(const CLI::App& root, int argc, char** argv) {
    const CLI::App* cmd = &root;
    while (!cmd->get_subcommands().empty()) cmd = cmd->get_subcommands().front();
    std::vector<std::string> known;
    for (const CLI::App* a = cmd; a; a = a->get_parent())
        for (const CLI::Option* o : a->get_options())
            for (const auto& l : o->get_lnames()) known.push_back("--" + l);
    if (cmd == &root)
        for (const CLI::App* sub : root.get_subcommands([](const CLI::App*) { return true; }))
            known.push_back(sub->get_name());
    for (int i = 1; i < argc; ++i) {
        std::string w = argv[i];
        if (w == "--") break;
        w = w.substr(0, w.find('='));
        if (w.empty()) continue;
        bool word = cmd == &root && w.front() != '-';
        if ((!w.starts_with("--") && !word) || std::find(known.begin(), known.end(), w) != known.end()) continue;
        if (auto s = lab::suggest(w, known)) return fmt::format(" (did you mean '{}'?)", *s);
    }
    return "";
}

// An option given an empty value (a script's unset variable) would read as
// not given, so as its default (the default store, for --db): refused. Only
// --a/--b ("" is the defaults) and --note take an empty value.
std::optional<std::string> empty_value(const CLI::App& root) {
    for (const CLI::App* a = &root; a; a = a->get_subcommands().empty() ? nullptr : a->get_subcommands().front())
        for (const CLI::Option* o : a->get_options()) {
            if (o->get_positional() || o->get_expected_max() == 0 || o->count() == 0) continue;
            std::string name = o->get_lnames().empty() ? o->get_name() : "--" + o->get_lnames().back();
            if (name == "--a" || name == "--b" || name == "--note") continue;
            const auto& given = o->results();
            if (std::none_of(given.begin(), given.end(), [](const std::string& v) { return v.empty(); })) continue;
            return fmt::format("{} '': an empty {}; give one, or leave {} out for {}", name,
                               name == "--db" ? "path" : "value", name,
                               name == "--db" ? "the default database" : "its default");
        }
    return std::nullopt;
}

// A usage error's exit status, or nullopt when a command is ready to run.
std::optional<int> parse(Commands& c, int argc, char** argv) {
    c.run_args.argv.assign(argv, argv + argc);
    c.import_args.argv = c.compare_args.common.argv = c.recipe_args.common.argv = c.run_args.argv;
    c.calibrate_args.common.argv = c.run_args.argv;
    try {
        c.app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return c.app.exit(e);
        // Arguments are the user's, or a script's: shown through the same filter as file contents.
        return say_error(fmt::format("error: {}{} (see --help)", report::printable(e.what()),
                                     report::printable(typo_hint(c.app, argc, argv))), kUsage);
    }
    if (auto extra = c.app.remaining(); !extra.empty()) {
        return say_error(fmt::format("error: unknown command or option '{}'{} (see --help)",
                                     report::printable(extra.front()), report::printable(typo_hint(c.app, argc, argv))),
                         kUsage);
    }
    if (auto bad = empty_value(c.app)) return say_error("error: " + report::printable(*bad), kUsage);
    if (c.app.get_subcommands().empty()) {  // none was parsed
        std::vector<std::string> names;
        for (const CLI::App* sub : c.app.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); }))
            names.push_back(sub->get_name());
        fmt::print(stderr, "exitbench: error: a command is required: {} (see --help)\n", fmt::join(names, ", "));
        return kUsage;
    }
    return std::nullopt;
}

} // namespace

int parse_only(const std::vector<std::string>& args) {
    Commands c;
    std::vector<std::string> words{"exitbench"};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    auto rc = parse(c, int(argv.size()), argv.data());
    return rc.value_or(kOk);
}

void visit_commands(const std::function<void(const CLI::App&)>& f) {
    Commands c;
    std::function<void(const CLI::App&)> walk = [&](const CLI::App& a) {
        f(a);
        // The definitions, not what a parse selected; option groups have no name.
        for (const CLI::App* sub : a.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); }))
            walk(*sub);
    };
    walk(c.app);
}

namespace {

int dispatch_command(Commands& c) {
    install_stop_handlers();
    if (*c.list && !c.list_kernel.empty() && !c.list_emulated)
        throw UsageError("--kernel IMAGE applies with --emulated");
    if (*c.list && c.list_emulated)
        return relay_emulated(c.run_args.argv, {"list", c.list_kernel, "", "table", false, false}, g_interrupted);
    if (*c.list) return cmd_list(c.device, c.list_all, c.list_kut);
    if (*c.env) return cmd_env(c.device);
    if (*c.history.history) return cmd_history(c.history, c.history_args);
    if (*c.completion) {
        write_stdout(completion_script(c.shell));
        return kOk;
    }
    if (*c.import.import) {
        g_polling.store(!*c.import.perf_kvm);  // kut and run stop between two saves
        return cmd_import(c.import, c.import_args, g_interrupted);
    }
    if (*c.report.merge) return cmd_report_merge(c.merge_args);
    if (*c.kselftest_install) return cmd_kselftest_install(c.kselftest_args);
    if (*c.recipe_show) return cmd_recipe_show(c.device, c.recipe_show_name);
    if (*c.recipe && !*c.recipe_run) return cmd_recipe_list();
    g_polling.store(true);
    if (*c.recipe_run) return cmd_recipe_run(c.device, c.recipe_name, c.recipe_args, g_interrupted);
    if (*c.profile.profile) return cmd_profile(c.profile, c.profile_args, g_interrupted);
    if (*c.compare && c.kernel_ab.active()) return cmd_compare_kernels(c.compare_args, c.kernel_ab, g_interrupted);
    if (*c.compare) return cmd_compare(c.device, c.compare_args, g_interrupted);
    if (*c.bisect) return cmd_bisect_step(c.bisect_args, g_interrupted);
    if (*c.calibrate) return cmd_calibrate(c.device, c.calibrate_args, g_interrupted);
    if (*c.boot) return cmd_boot(c.boot_args, g_interrupted);
    return cmd_run(c.device, c.run_args, c.host_profile_args, g_interrupted);
}

// The commands that start VMs and take --emulated: without a usable
// /dev/kvm their one error line names the way on (lab::emulated_way).
int dispatch(Commands& c) {
    try {
        return dispatch_command(c);
    } catch (const lab::NoKvm& e) {
        bool emulable = *c.list || *c.recipe_run || (*c.compare && !c.kernel_ab.active()) ||
                        !(*c.env || *c.calibrate || *c.profile.profile || *c.boot || *c.bisect);
        if (!emulable) throw;
        throw lab::NoKvm(fmt::format("{}; {}", e.what(), lab::emulated_way(c.run_args.argv)));
    }
}

// Runs a command: its exceptions become one line and an exit code. Messages
// quote labels, paths and file contents: filtered like the rest of the output.
template <class F>
int guarded(F&& command) {
    try {
        return finish_stdout(command());
    } catch (const UsageError& e) {
        return say_error("error: " + report::printable(e.what()), kUsage);
    } catch (const InputError& e) {
        return say_error("error: " + report::printable(e.what()), kUsage);
    } catch (const HostError& e) {
        return say_error("error: " + report::printable(e.what()), kHost);
    } catch (const std::system_error& e) {
        if (!std::ferror(stdout)) return say_error("error: " + report::printable(e.what()), kHost);
        // fmt::print failed to write: stdout's reader has all it wanted, or it is full.
        if (e.code().value() == EPIPE) return kOk;
        return say_error("error: cannot write to stdout: " + e.code().message(), kHost);
    } catch (const std::bad_alloc&) {
        return say_error("error: out of memory", kHost);
    } catch (const std::exception& e) {  // a bug: input and host errors are typed where they arise
        return say_error("internal error: " + report::printable(e.what()), kInternal);
    }
}

// kselftest's status; a command that failed before its KTAP (bad usage, a
// host error) still prints a KTAP document that says why.
int as_kselftest(int rc, const std::string& why) {
    if ((rc == kUsage || rc == kHost || rc == kInternal) && !stdout_written()) {
        try {
            write_stdout(ktap_error(why.empty() ? "exit status " + std::to_string(rc) : why));
        } catch (const std::exception&) {  // stdout unwritable: the status still says it
        }
    }
    return kselftest_status(rc);
}

} // namespace

int run_guarded(const std::function<int()>& command) { return guarded(command); }

namespace {

// Whether the command is bisect-step: its first word after the root options.
bool names_bisect_step(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        std::string_view w = argv[i];
        if (w == "--device") ++i;
        else if (!w.starts_with("-")) return w == "bisect-step";
    }
    return false;
}

// git bisect run reads any status but 0, 125 and 128..255 as "bad": a typo
// or a host error must stop the bisection, not mark the commit.
int as_bisect(int rc) {
    switch (rc) {
    case kBisectGood: case kBisectBad: case kBisectSkip: case kBisectAbort: case kInterrupted: return rc;
    default: return kBisectAbort;
    }
}

} // namespace

int main(int argc, char** argv) {
    // Write errors come back as errors (EPIPE, EFBIG) instead of killing the
    // process before it has written its files.
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGXFSZ, SIG_IGN);
    Commands c;
    if (names_bisect_step(argc, argv)) {
        if (auto rc = parse(c, argc, argv)) return as_bisect(*rc);
        return as_bisect(guarded([&] { return dispatch(c); }));
    }
    if (auto rc = parse(c, argc, argv)) return ktap_stdout(c.stdout_format()) ? as_kselftest(*rc, g_error_line) : *rc;
    // Bad input exits 2 and a host that cannot run exitbench 3, each with one line;
    // with --format ktap, kselftest's codes instead (cli/kselftest.h).
    if (!ktap_stdout(c.stdout_format())) return guarded([&] { return dispatch(c); });
    int rc = guarded(skip_without_kvm([&] { return dispatch(c); }));
    return as_kselftest(rc, g_error_line);
}

} // namespace eb::cli
