// `exitbench env`: the host facts a result records.
#include <algorithm>
#include <fmt/format.h>

#include "cli/app.h"
#include "cli/command.h"
#include "cli/emit.h"
#include "lab/host_probe.h"

namespace eb::cli {

namespace {

int print_env(const std::string& device) {
    std::string missing;
    auto facts = lab::host_facts(device, missing);
    if (!missing.empty()) fmt::print(stderr, "exitbench: warning: {}; KVM facts are missing\n", missing);
    size_t w = 0;
    for (const auto& [k, v] : facts) w = std::max(w, k.size());
    std::string out;
    for (const auto& [k, v] : facts) out += fmt::format("{:<{}}  {}\n", k, w, v);
    write_stdout(out);
    return kOk;
}

class EnvCommand : public Command {
public:
    explicit EnvCommand(CLI::App& root)
        : Command(root.add_subcommand("env", "print the host environment a result records")) {
        app_->allow_extras(false);
    }
    int run(const Context& ctx) override { return print_env(ctx.device); }
    bool polls() const override { return false; }
    bool emulable() const override { return false; }
};

} // namespace

std::unique_ptr<Command> env_command(CLI::App& root) { return std::make_unique<EnvCommand>(root); }

} // namespace eb::cli
