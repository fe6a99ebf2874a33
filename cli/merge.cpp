// `exitbench report merge FILE|run:N|label:L ...`: saved results of many
// hosts in one view, through the exporters like every other command.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "cli/app.h"
#include "cli/command.h"
#include "cli/emit.h"
#include "cli/errors.h"
#include "cli/export.h"
#include "cli/history.h"
#include "report/merge.h"

namespace eb::cli {

struct MergeArgs {
    std::vector<std::string> inputs;  // files and history references
    std::string db, format = "table";
    ExportPaths exports;
};

struct ReportCommands {
    CLI::App *report = nullptr, *merge = nullptr;
};

ReportCommands add_report_commands(CLI::App& app, MergeArgs& a) {
    ReportCommands c;
    c.report = app.add_subcommand("report", "views over saved results");
    c.report->require_subcommand(1);
    c.merge = c.report->add_subcommand("merge", "results of many hosts: grouped by CPU model, microcode, kernel and "
                                                "backend, the spread across hosts per test, outlier hosts flagged");
    c.merge->add_option("inputs", a.inputs, "saved results, one or more per host: files (run --export-json), "
                                            "run:N or label:L from the history")->required();
    c.merge->add_option("--db", a.db, "the history database that run: and label: refer to");
    add_format_option(*c.merge, a.format, report::Subject::Merge);
    add_export_options(*c.merge, a.exports, report::Subject::Merge, &a.format);
    c.merge->allow_extras(false);
    return c;
}

int cmd_report_merge(const MergeArgs& a) {
    auto out = plan_outputs(a.format, a.exports, "", report::Subject::Merge);
    std::vector<report::MergeInput> in;
    for (const auto& arg : a.inputs) {
        // A label names every run filed under it; each is an input of its own.
        auto names = is_history_ref(arg) ? expand_ref(a.db, arg) : std::vector<std::string>{arg};
        for (const auto& name : names) in.push_back({name, load_result(name, a.db)});
    }
    return emit(out, report::merge_runs(in)).written ? kOk : kHost;
}

namespace {

class ReportCommand : public Command {
public:
    explicit ReportCommand(CLI::App& root) : Command(nullptr), c_(add_report_commands(root, args_)) { app_ = c_.report; }
    int run(const Context&) override { return cmd_report_merge(args_); }
    bool polls() const override { return false; }

private:
    MergeArgs args_;
    ReportCommands c_;
};

} // namespace

std::unique_ptr<Command> report_command(CLI::App& root) { return std::make_unique<ReportCommand>(root); }

} // namespace eb::cli
