// `exitbench kselftest-install DIR [--timeout DURATION] [-- RUN-ARGS]`: a
// kselftest collection (lab/kselftest_collection.h) in an installed
// kselftest tree.
#include <CLI/CLI.hpp>
#include <cmath>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "cli/app.h"
#include "cli/command.h"
#include "cli/emit.h"
#include "cli/errors.h"
#include "cli/parse.h"
#include "lab/kselftest_collection.h"
#include "report/sanitize.h"

namespace eb::cli {

struct KselftestInstallArgs {
    std::string dir, timeout = "900s";
    std::vector<std::string> run_args;
};


CLI::App* add_kselftest_install_command(CLI::App& app, KselftestInstallArgs& a) {
    auto* cmd = app.add_subcommand("kselftest-install",
                                   "write exitbench as a kselftest collection into an installed kselftest tree "
                                   "(DIR/exitbench/run_exitbench.sh, its settings, DIR/kselftest-list.txt), so "
                                   "DIR/run_kselftest.sh -c exitbench runs it");
    cmd->add_option("dir", a.dir, "the kselftest tree (where run_kselftest.sh is)")->required();
    cmd->add_option("--timeout", a.timeout,
                    "the collection's kselftest timeout (settings; kselftest's default is 45 s)")
        ->capture_default_str();
    cmd->add_option("run_args", a.run_args, "after --: the arguments of `exitbench run` (tests, options)");
    return cmd;
}

int cmd_kselftest_install(const KselftestInstallArgs& a) {
    double timeout = parse_duration("--timeout", a.timeout, 86400, 1);
    if (!a.run_args.empty()) {
        std::vector<std::string> words{"run"};
        words.insert(words.end(), a.run_args.begin(), a.run_args.end());
        // The script's run must parse; its format and saving are the collection's.
        for (const auto& w : a.run_args)
            if (w == "--format" || w.starts_with("--format=") || w == "--db" || w == "--label")
                throw UsageError(fmt::format("{}: the collection runs with --format ktap --no-save", w));
        if (int rc = parse_only(words); rc != kOk) return rc;
    }
    lab::KselftestCollection c;
    c.dir = a.dir;
    c.timeout_s = unsigned(std::ceil(timeout));
    c.run_args = a.run_args;
    auto done = lab::install_kselftest(c);
    write_stdout(fmt::format("wrote {} and {} (timeout={}){}\nrun it with: {}/run_kselftest.sh -c {}\n",
                             report::printable(done.script), report::printable(done.settings), c.timeout_s,
                             done.newly_listed ? fmt::format("; listed it in {}", report::printable(done.list)) : "",
                             report::printable(a.dir), lab::kKselftestCollection));
    return kOk;
}

namespace {

class KselftestInstallCommand : public Command {
public:
    explicit KselftestInstallCommand(CLI::App& root) : Command(nullptr) { app_ = add_kselftest_install_command(root, args_); }
    int run(const Context&) override { return cmd_kselftest_install(args_); }
    bool polls() const override { return false; }

private:
    KselftestInstallArgs args_;
};

} // namespace

std::unique_ptr<Command> kselftest_install_command(CLI::App& root) {
    return std::make_unique<KselftestInstallCommand>(root);
}

} // namespace eb::cli
