// The command table: adding a command is its file and one line here, in the
// order --help lists them. Each file defines its `NAME_command`.
#include "cli/command.h"

#define EB_COMMANDS(X)           \
    X(list_command)              \
    X(env_command)               \
    X(recipe_command)            \
    X(profile_command)           \
    X(compare_command)           \
    X(calibrate_command)         \
    X(kselftest_install_command) \
    X(boot_command)              \
    X(bisect_step_command)       \
    X(history_command)           \
    X(import_command)            \
    X(completion_command)        \
    X(report_command)            \
    X(run_command)

namespace eb::cli {

#define EB_DECLARE(f) std::unique_ptr<Command> f(CLI::App& root);
EB_COMMANDS(EB_DECLARE)
#undef EB_DECLARE

std::span<const MakeCommand> commands() {
#define EB_ENTRY(f) &f,
    static constexpr MakeCommand table[] = {EB_COMMANDS(EB_ENTRY)};
#undef EB_ENTRY
    return table;
}

} // namespace eb::cli
