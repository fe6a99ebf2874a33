#include "cli/export.h"
#include "report/sanitize.h"

#include <algorithm>
#include <fmt/format.h>
#include <filesystem>
#include <set>

#include "cli/errors.h"
#include "cli/run.h"
#include "lab/suggest.h"
#include "sys/file.h"
#include "sys/io.h"

namespace eb::cli {

namespace {
constexpr std::string_view kFlag = "--export-";

std::string names(report::Subject s) { return fmt::format("{}", fmt::join(report::format_names(s), ", ")); }

// After parsing: the one '-' export, if any, moved to `format` (nullptr: refused).
void route_stdout_export(ExportPaths& paths, std::string* format) {
    std::vector<std::string> dashed;
    for (const auto& [name, path] : paths)
        if (path == "-") dashed.push_back(name);
    if (dashed.empty()) return;
    if (!format)
        throw CLI::ValidationError(fmt::format("{}{} -: this command's stdout is its own; name a file", kFlag, dashed[0]));
    if (dashed.size() > 1)
        throw CLI::ValidationError(fmt::format("{}{} - and {}{} - both name stdout; one export can", kFlag, dashed[0], kFlag,
                                     dashed[1]));
    if (*format != "table" && *format != dashed[0])
        throw CLI::ValidationError(fmt::format("{}{} - and --format {} both name stdout", kFlag, dashed[0], *format));
    *format = dashed[0];
    paths[dashed[0]].clear();
}
} // namespace

void add_export_options(CLI::App& cmd, ExportPaths& paths, report::Subject s, std::string* format) {
    for (const auto& f : report::formats()) {
        if (!f.export_flag || !f.applies(s)) continue;
        std::string name(f.name);
        cmd.add_option(std::string(kFlag) + name, paths[name],
                       fmt::format("also write {} to FILE{}: {}", name, format ? " ('-': to stdout instead of --format)" : "",
                                   f.what));
    }
    cmd.parse_complete_callback([&paths, format] { route_stdout_export(paths, format); });
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
    if (json_alias == "-") throw UsageError("--json -: for stdout use --export-json - (or --format json)");
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
    auto guess = lab::suggest(name, report::format_names(s));
    throw UsageError(fmt::format("--format: unknown format '{}'{}; one of {}", name,
                                 guess ? fmt::format(" (did you mean '{}'?)", *guess) : "", names(s)));
}

bool write_export(const std::string& format, const std::string& path, const std::function<std::string()>& render) {
    try {
        // node_exporter reads the textfile as its own user: 0644 whatever the
        // umask (a 077 one would make it 0600, and the fleet's metrics vanish).
        sys::write_file(path, render(), format == "openmetrics" ? 0644 : sys::default_file_mode());
        return true;
    } catch (const std::exception& e) {  // the other files, and stdout, still get the results
        fmt::print(stderr, "exitbench: error: --export-{}: {}\n", format, report::printable(e.what()));
        return false;
    }
}

namespace {

constexpr std::string_view kInterruptedFamily = "exitbench_run_interrupted";

std::string interrupted_family(int value) {
    return fmt::format("# HELP {0} 1 when the newest run was stopped before it finished: the other samples are "
                       "then the last complete run's\n# TYPE {0} gauge\n{0} {1}\n", kInterruptedFamily, value);
}

// `text` without the lines of the interrupted family (an earlier interrupted run's).
std::string without_marker(const std::string& text) {
    std::string out;
    for (size_t at = 0; at < text.size();) {
        size_t nl = text.find('\n', at);
        size_t end = nl == std::string::npos ? text.size() : nl + 1;
        std::string_view line(text.data() + at, end - at);
        bool ours = line.starts_with(kInterruptedFamily) || line.starts_with("# HELP " + std::string(kInterruptedFamily)) ||
                    line.starts_with("# TYPE " + std::string(kInterruptedFamily));
        if (!ours) out.append(line);
        at = end;
    }
    return out;
}

} // namespace

bool write_run_textfiles(std::vector<std::pair<std::string, std::string>>& plan, const std::function<std::string()>& render,
                         bool interrupted) {
    bool ok = true;
    for (auto it = plan.begin(); it != plan.end();) {
        if (it->first != "openmetrics") {
            ++it;
            continue;
        }
        std::string path = it->second;
        it = plan.erase(it);
        std::error_code ec;
        std::string old;
        if (interrupted && std::filesystem::is_regular_file(path, ec)) {
            try {
                old = sys::read_regular(path);
            } catch (const std::exception&) {  // unreadable: replaced by this run's, marked as interrupted
            }
        }
        bool keep = !old.empty() && old.find("exitbench_run_info") != std::string::npos;
        if (keep) fmt::print(stderr, "exitbench: --export-openmetrics {}: interrupted, so it keeps the last complete "
                                     "run's samples (exitbench_run_interrupted 1)\n", report::printable(path));
        ok &= write_export("openmetrics", path, [&] {
            return (keep ? without_marker(old) : render()) + interrupted_family(interrupted ? 1 : 0);
        });
    }
    return ok;
}

} // namespace eb::cli
