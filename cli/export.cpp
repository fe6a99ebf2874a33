#include "cli/export.h"
#include "report/sanitize.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>

#include "cli/errors.h"
#include "cli/run.h"
#include "cli/suggest.h"
#include "sys/file.h"

namespace eb::cli {

namespace {
constexpr std::string_view kFlag = "--export-";

std::string names(report::Subject s) { return fmt::format("{}", fmt::join(report::format_names(s), ", ")); }
} // namespace

void add_export_options(CLI::App& cmd, ExportPaths& paths, report::Subject s) {
    for (const auto& f : report::formats()) {
        if (!f.export_flag || !f.applies(s)) continue;
        std::string name(f.name);
        cmd.add_option(std::string(kFlag) + name, paths[name], fmt::format("also write {} to FILE: {}", name, f.what));
    }
}

void add_format_option(CLI::App& cmd, std::string& format, report::Subject s, const std::string& more) {
    cmd.add_option("--format", format, fmt::format("stdout format: {} (default table){}", names(s), more));
}

std::vector<std::pair<std::string, std::string>> plan_exports(const ExportPaths& paths, const std::string& json_alias,
                                                              report::Subject s) {
    std::vector<std::pair<std::string, std::string>> plan;
    for (const auto& [format, path] : paths) {
        if (path.empty()) continue;
        const auto* f = report::find_format(format);
        if (!f || !f->applies(s))
            throw UsageError(fmt::format("{}{} does not apply to {}; its formats: {}", kFlag, format,
                                         report::subject_name(s), names(s)));
        plan.emplace_back(format, path);
    }
    if (!json_alias.empty()) {
        auto given = paths.find("json");
        if (given != paths.end() && !given->second.empty() && given->second != json_alias)
            throw UsageError("--json FILE is --export-json FILE under its old name: give one of them");
        if (given == paths.end() || given->second.empty()) plan.emplace_back("json", json_alias);
    }
    std::set<std::string> seen;
    for (const auto& [format, path] : plan) {
        if (!seen.insert(path).second)
            throw UsageError(fmt::format("{} is named by two exports; each format needs a file of its own", path));
        require_writable(path);
    }
    return plan;
}

std::unique_ptr<report::Exporter> stdout_exporter(const std::string& name, report::Subject s) {
    const auto* f = report::find_format(name);
    if (f && f->applies(s)) return f->make();
    if (f)
        throw UsageError(fmt::format("--format {} does not apply to {}; one of {}", name, report::subject_name(s), names(s)));
    auto guess = suggest(name, report::format_names(s));
    throw UsageError(fmt::format("--format: unknown format '{}'{}; one of {}", name,
                                 guess ? fmt::format(" (did you mean '{}'?)", *guess) : "", names(s)));
}

bool write_export(const std::string& format, const std::string& path, const std::function<std::string()>& render) {
    try {
        sys::write_file(path, render());
        return true;
    } catch (const std::exception& e) {  // the other files, and stdout, still get the results
        fmt::print(stderr, "exitbench: error: --export-{}: {}\n", format, report::printable(e.what()));
        return false;
    }
}

} // namespace eb::cli
