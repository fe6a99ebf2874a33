#include "cli/app.h"
#include "lab/module_ab.h"

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

#include "cli/command.h"
#include "cli/emit.h"
#include "cli/errors.h"
#include "cli/help.h"
#include "cli/kselftest.h"
#include "lab/emulated.h"
#include "lab/suggest.h"
#include "lab/version.h"
#include "lab/profile_session.h"
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
    if (!lab::tracing_active() && !lab::module_change_active()) _exit(128 + sig);
    static const char msg[] = "exitbench: stopping: removing the ftrace instance first, or restoring the module "
                              "(SIGKILL would leave them behind)\n";
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

// The root options and every command of the table (cli/commands.cpp).
struct Commands {
    CLI::App app{"exitbench: what does one VM exit cost? A KVM VM-exit laboratory."};
    std::string device = "/dev/kvm";
    bool quiet = false;
    std::vector<std::string> argv;
    std::vector<std::unique_ptr<Command>> all;

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
        for (MakeCommand make : commands()) all.push_back(make(app));
        finish_help(app);
    }

    Command* selected() const {
        for (const auto& c : all)
            if (c->selected()) return c.get();
        return nullptr;
    }
    // The --format of the command given ("" for one without).
    std::string stdout_format() const { return selected() ? selected()->stdout_format() : ""; }
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
    c.argv.assign(argv, argv + argc);
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

// The parsed command, run; without a usable /dev/kvm, the one error line of a
// command that starts VMs and takes --emulated names the way on
// (lab::emulated_way).
int dispatch(Commands& c) {
    install_stop_handlers();
    Command* cmd = c.selected();
    g_polling.store(cmd->polls());
    try {
        return cmd->run(Context{c.device, c.argv, g_interrupted});
    } catch (const lab::NoKvm& e) {
        if (!cmd->emulable()) throw;
        throw lab::NoKvm(fmt::format("{}; {}", e.what(), lab::emulated_way(c.argv)));
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
