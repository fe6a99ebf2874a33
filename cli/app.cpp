#include "cli/app.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <csignal>
#include <fmt/format.h>
#include <iostream>
#include <optional>
#include <unistd.h>

#include "cli/errors.h"
#include "cli/compare.h"
#include "cli/history.h"
#include "cli/profile.h"
#include "cli/recipe.h"
#include "cli/run.h"
#include "env/host_env.h"
#include "vmm/boot.h"
#include "report/exporter.h"
#include "report/file.h"
#include "report/json.h"
#include "suite/registry.h"
#include "suite/runner.h"

#ifndef EB_VERSION
#define EB_VERSION "dev"
#endif

namespace eb::cli {

namespace {

std::atomic<bool> g_interrupted{false};

void on_sigint(int) {
    g_interrupted.store(true);
    std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

int cmd_list(const std::string& device, bool all) {
    auto sys = open_kvm(device);
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
    }
    fmt::print("\nKVM backend here: {}\n", vmm::backend_name(ctx.backend));
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

int cmd_run(const std::string& device, const RunArgs& a) {
    if (a.no_save && (!a.db.empty() || !a.label.empty() || !a.note.empty()))
        throw UsageError("--no-save does not save, so --db, --label and --note have nothing to apply to");
    auto plan = plan_run(a);
    auto exporter = report::make_exporter(a.format);
    if (!exporter)
        throw UsageError(fmt::format("--format must be one of {}, not '{}'",
                                     fmt::join(report::format_names(), ", "), a.format));
    auto sys = open_kvm(device);
    std::signal(SIGINT, on_sigint);
    auto rep = execute(sys, plan, g_interrupted, isatty(STDERR_FILENO));
    std::signal(SIGINT, SIG_DFL);

    std::cout << exporter->render(rep) << std::flush;
    if (!a.json.empty()) report::write_file_atomic(a.json, report::to_json(rep).dump(2) + "\n");
    // An interrupted run is partial: it would mislead a later comparison.
    if (!a.no_save && !rep.interrupted) save_run(a.db, rep, a.label, a.note);
    if (rep.interrupted) return kInterrupted;
    bool failed = std::any_of(rep.results.begin(), rep.results.end(),
                              [](const auto& r) { return suite::is_failure(r.status); });
    return failed ? kTestFailed : kOk;
}

// Every command, its options, and where CLI11 leaves what it parsed.
struct Commands {
    CLI::App app{"exitbench: what does one VM exit cost? A KVM VM-exit laboratory."};
    std::string device = "/dev/kvm";
    bool list_all = false;
    CLI::App *list, *env, *recipe, *recipe_run, *compare, *run;
    HistoryArgs history_args;
    HistoryCommands history;
    std::string recipe_name;
    CompareArgs recipe_args, compare_args;
    ProfileArgs profile_args;
    ProfileCommands profile;
    RunArgs run_args;

    Commands() {
        app.set_version_flag("--version", EB_VERSION);
        app.require_subcommand(0, 1);
        app.allow_extras();  // so an unknown command gets our message, not CLI11's
        app.add_option("--device", device, "KVM device node")->capture_default_str();

        list = app.add_subcommand("list", "list the tests, what each expects, and skips on this host");
        list->add_flag("--all", list_all, "include the harness self-tests");
        list->allow_extras(false);

        env = app.add_subcommand("env", "print the host environment a result records");
        env->allow_extras(false);

        recipe = app.add_subcommand("recipe", "known experiments (BHI SPEC_CTRL, EFER switching, IPI paths) as ready comparisons");
        recipe->require_subcommand(1);
        recipe->add_subcommand("list", "list the recipes and the question each answers")->allow_extras(false);
        recipe_run = recipe->add_subcommand("run", "run one recipe: its configurations compared, interleaved");
        recipe_run->add_option("name", recipe_name, "the recipe (see 'recipe list')")->required();
        add_compare_options(*recipe_run, recipe_args);

        profile = add_profile_commands(app, profile_args);

        compare = app.add_subcommand("compare", "A/B: configurations in interleaved rounds (--a/--b), or saved "
                                                "results (A.json B.json, or A1.json ... --vs B1.json ...)");
        add_compare_options(*compare, compare_args);
        compare->add_option("--db", compare_args.db, "the history database that label:/run: refer to");
        compare->add_option("--against", compare_args.against,
                            "'last': the newest saved run vs the newest earlier one with the same tests and host");

        history = add_history_commands(app, history_args);

        run = app.add_subcommand("run", "run tests (all of the default suite when none are named)");
        add_run_options(*run, run_args);
        run->add_option("--seed", run_args.seed, "seed of the shuffled test order with --sessions (default: random, saved)");
        run->add_option("--db", run_args.db, "save to this history database (default $XDG_DATA_HOME/exitbench/history.db)");
        run->add_flag("--no-save", run_args.no_save, "do not save the run to the history");
        run->add_option("--label", run_args.label, "file the saved run under this label, e.g. before-v2");
        run->add_option("--note", run_args.note, "a note saved with the run");
    }
};

// A usage error's exit status, or nullopt when a command is ready to run.
std::optional<int> parse(Commands& c, int argc, char** argv) {
    c.run_args.argv.assign(argv, argv + argc);
    try {
        c.app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return c.app.exit(e);
        fmt::print(stderr, "exitbench: error: {} (see --help)\n", e.what());
        return kUsage;
    }
    if (auto extra = c.app.remaining(); !extra.empty()) {
        fmt::print(stderr, "exitbench: error: unknown command or option '{}' (see --help)\n", extra.front());
        return kUsage;
    }
    if (!*c.list && !*c.run && !*c.env && !*c.recipe && !*c.compare && !*c.profile.profile &&
        !*c.history.history) {
        fmt::print(stderr, "exitbench: error: a command is required: list, run, compare, history, profile, env or "
                           "recipe (see --help)\n");
        return kUsage;
    }
    return std::nullopt;
}

int dispatch(Commands& c) {
    if (*c.list) return cmd_list(c.device, c.list_all);
    if (*c.env) return cmd_env(c.device);
    if (*c.recipe_run) {
        std::signal(SIGINT, on_sigint);
        return cmd_recipe_run(c.device, c.recipe_name, c.recipe_args, g_interrupted);
    }
    if (*c.profile.profile) {
        std::signal(SIGINT, on_sigint);
        return cmd_profile(c.profile, c.profile_args, g_interrupted);
    }
    if (*c.compare) {
        std::signal(SIGINT, on_sigint);
        return cmd_compare(c.device, c.compare_args, g_interrupted);
    }
    if (*c.history.history) return cmd_history(c.history, c.history_args);
    if (*c.recipe) return cmd_recipe_list();
    return cmd_run(c.device, c.run_args);
}

} // namespace

int main(int argc, char** argv) {
    Commands c;
    if (auto rc = parse(c, argc, argv)) return *rc;
    // Bad input exits 2 and a host that cannot run exitbench 3, each with one line.
    try {
        return dispatch(c);
    } catch (const UsageError& e) {
        fmt::print(stderr, "exitbench: error: {}\n", e.what());
        return kUsage;
    } catch (const std::invalid_argument& e) {
        fmt::print(stderr, "exitbench: error: {}\n", e.what());
        return kUsage;
    } catch (const std::exception& e) {  // HostError and the rest
        fmt::print(stderr, "exitbench: error: {}\n", e.what());
        return kHost;
    }
}

} // namespace eb::cli
