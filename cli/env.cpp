// `exitbench env`: the host facts a result records.
#include <algorithm>
#include <fmt/format.h>
#include <optional>

#include "cli/app.h"
#include "cli/command.h"
#include "env/host_env.h"
#include "suite/runner.h"
#include "vmm/boot.h"

namespace eb::cli {

namespace {

int print_env(const std::string& device) {
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
