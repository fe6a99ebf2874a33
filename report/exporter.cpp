#include "report/exporter.h"
#include "sys/error.h"

#include <algorithm>
#include <stdexcept>

namespace eb::report {

const char* subject_name(Subject s) {
    switch (s) {
    case Subject::Run: return "run";
    case Subject::Compare: return "compare";
    case Subject::Profile: return "profile report";
    case Subject::Merge: return "report merge";
    case Subject::ProfileCompare: return "profile compare";
    case Subject::HostProfileCompare: return "profile compare of saved host profiles";
    }
    return "?";
}

namespace {
[[noreturn]] void not_for(Subject s) {
    throw InputError(std::string("this format does not apply to ") + subject_name(s));
}
constexpr Subject kRun = Subject::Run, kCmp = Subject::Compare, kProf = Subject::Profile, kMerge = Subject::Merge,
                  kPCmp = Subject::ProfileCompare, kHost = Subject::HostProfileCompare;
} // namespace

std::string Exporter::render(const Comparison&) const { not_for(kCmp); }
std::string Exporter::render(const profile::Report&) const { not_for(kProf); }
std::string Exporter::render(const Merged&) const { not_for(kMerge); }
std::string Exporter::render(const ProfileComparison&) const { not_for(kPCmp); }
std::string Exporter::render(const HostProfileComparison&) const { not_for(kHost); }

bool Format::applies(Subject s) const { return std::find(subjects.begin(), subjects.end(), s) != subjects.end(); }

const std::vector<Format>& formats() {
    static const std::vector<Format> all = {
        {"table", "the terminal report", {kRun, kCmp, kProf, kMerge, kPCmp, kHost}, false, table_exporter},
        {"kut", "vmexit.flat's \"name cycles\" lines", {kRun}, false, kut_exporter},
        {"json", "the full result (schemas exitbench-run, exitbench-compare, exitbench-merge, "
                 "exitbench-profile-compare, exitbench-host-diff)",
         {kRun, kCmp, kProf, kMerge, kPCmp, kHost}, true,
         json_exporter},
        {"csv", "RFC 4180, a header row and one row per test (per test and configuration; per exit reason; "
                "per group of hosts and test; per test and function)",
         {kRun, kCmp, kProf, kMerge, kHost}, true, csv_exporter},
        {"markdown", "a GitHub table", {kRun, kCmp, kProf, kMerge, kHost}, true, markdown_exporter},
        {"text", "plain fixed-width columns, for mailing lists", {kRun, kCmp, kProf, kMerge, kHost}, true, text_exporter},
        {"html", "one self-contained offline page with plots", {kRun, kCmp, kProf, kMerge, kHost}, true, html_exporter},
        {"openmetrics", "Prometheus text exposition, for node_exporter's textfile collector",
         {kRun, kCmp, kProf, kMerge}, true, openmetrics_exporter},
        {"ktap", "KTAP version 1 as kselftest prints it, for kernel CI: a result per test, figures as '# ' "
                 "lines (a compare nests its configurations as subtests)",
         {kRun, kCmp}, true, ktap_exporter},
        {"junit", "JUnit XML for CI servers (GitLab, Jenkins): a testcase per test and configuration, figures as "
                  "properties",
         {kRun, kCmp}, true, junit_exporter},
    };
    return all;
}

const Format* find_format(std::string_view name) {
    for (const auto& f : formats())
        if (f.name == name) return &f;
    return nullptr;
}

std::unique_ptr<Exporter> make_exporter(std::string_view format) {
    const Format* f = find_format(format);
    return f ? f->make() : nullptr;
}

std::vector<std::string> format_names(Subject s) {
    std::vector<std::string> out;
    for (const auto& f : formats())
        if (f.applies(s)) out.emplace_back(f.name);
    return out;
}

} // namespace eb::report
