#include "cli/merge.h"

#include <fmt/format.h>

#include "cli/app.h"
#include "cli/emit.h"
#include "cli/errors.h"
#include "cli/history.h"
#include "report/merge.h"

namespace eb::cli {

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

} // namespace eb::cli
