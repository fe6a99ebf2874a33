#include "cli/merge.h"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>

#include "cli/app.h"
#include "cli/errors.h"
#include "report/json.h"
#include "report/merge.h"

namespace eb::cli {

ReportCommands add_report_commands(CLI::App& app, std::vector<std::string>& files) {
    ReportCommands c;
    c.report = app.add_subcommand("report", "views over saved results");
    c.report->require_subcommand(1);
    c.merge = c.report->add_subcommand("merge", "results of many hosts: grouped by CPU model, microcode, kernel and "
                                                "backend, the spread across hosts per test, outlier hosts flagged");
    c.merge->add_option("files", files, "saved result files (run --export-json), one or more per host")->required();
    c.merge->allow_extras(false);
    return c;
}

int cmd_report_merge(const std::vector<std::string>& files) {
    std::vector<report::MergeInput> in;
    for (const auto& path : files) {
        std::ifstream f(path);
        if (!f) throw UsageError(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
        try {
            in.push_back({path, report::from_json(report::parse_document(f, path))});
        } catch (const std::exception& e) {
            std::string why = e.what();
            throw UsageError(why.rfind(path, 0) == 0 ? why : path + ": " + why);
        }
    }
    write_stdout(report::render_merged(report::merge_runs(in)));
    return kOk;
}

} // namespace eb::cli
