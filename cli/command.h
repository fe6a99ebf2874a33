// One command of exitbench: its file declares the options, calls the use
// case in lab/ and prints what comes back; cli/commands.cpp lists every
// command, one line each (perf.c's commands[]).
#pragma once
#include <CLI/CLI.hpp>
#include <atomic>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace eb::cli {

// What a parsed command is given to run.
struct Context {
    std::string device;              // --device
    std::vector<std::string> argv;   // the whole command line, for provenance and relays
    std::atomic<bool>& interrupted;  // a stop signal arrived (SIGINT, SIGTERM, SIGHUP)
};

class Command {
public:
    // `app`: the subcommand it added; nullptr when the body adds it, once
    // the members it binds its options to exist.
    explicit Command(CLI::App* app) : app_(app) {}
    virtual ~Command() = default;
    // Whether the parse selected this command.
    bool selected() const { return app_->parsed(); }
    virtual int run(const Context& ctx) = 0;
    // Whether it watches ctx.interrupted and stops in order; a command that
    // does not (a read, a quick write) is ended at once by a stop signal.
    virtual bool polls() const { return true; }
    // Its stdout --format as parsed ("" for none): ktap maps the exit statuses.
    virtual std::string stdout_format() const { return ""; }
    // Whether a missing /dev/kvm's line names --emulated as the way on.
    virtual bool emulable() const { return true; }

protected:
    CLI::App* app_;
};

using MakeCommand = std::unique_ptr<Command> (*)(CLI::App& root);
// Every command, in the order --help lists them.
std::span<const MakeCommand> commands();

} // namespace eb::cli
