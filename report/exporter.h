// One exporter per output format, behind one interface: every command's
// result (a run, a comparison, a profile analysis) is rendered through it,
// and the formats are registered in one table (formats()).
// Results of many hosts (report merge) and profile compare's are subjects too.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile/analyze.h"
#include "profile/host_diff.h"
#include "report/gate_view.h"
#include "report/merge.h"
#include "suite/compare.h"
#include "suite/result.h"

namespace eb::report {

// A comparison as `compare` shows it: the verdicts, and the lines that say
// what was compared (files or configurations, host differences).
struct Comparison {
    suite::ComparisonReport report;
    std::vector<std::string> header;
    std::optional<GateView> gate = {};  // --fail-if-slower's decision, when asked for
    std::vector<std::string> command = {};  // the compare's own argv, for --export-text
};

// profile compare's result: per key, the old and new traces side by side.
struct ProfileComparison {
    std::vector<profile::ReasonChange> changes;
    profile::Mode mode = profile::Mode::VmExit;
};

// A differential flame graph (report/flame_diff.h) with its caption's
// subject, e.g. ("ipi: x2apic vs xapic", tree).
struct DiffFlame {
    std::string title;
    nlohmann::json tree;
};

// profile compare of saved runs' host profiles (lab/host_profile_compare.h):
// per function what moved, and the differential flame graphs.
struct HostProfileComparison {
    profile::HostDiff diff;
    std::vector<DiffFlame> flames;
};

// What a command produced.
enum class Subject { Run, Compare, Profile, Merge, ProfileCompare, HostProfileCompare };
const char* subject_name(Subject s);

class Exporter {
public:
    virtual ~Exporter() = default;
    virtual std::string render(const suite::RunReport& r) const = 0;
    // A format that does not apply (formats() says which do) throws InputError.
    virtual std::string render(const Comparison& c) const;
    virtual std::string render(const profile::Report& p) const;
    virtual std::string render(const Merged& m) const;
    virtual std::string render(const ProfileComparison& c) const;
    virtual std::string render(const HostProfileComparison& c) const;
};

struct Format {
    std::string_view name;
    std::string_view what;                 // for --help
    std::vector<Subject> subjects;         // what it can render
    bool export_flag;                      // has --export-NAME FILE
    std::unique_ptr<Exporter> (*make)();
    bool applies(Subject s) const;
};

// The registry: every format, once.
const std::vector<Format>& formats();
const Format* find_format(std::string_view name);
// nullptr for an unknown name.
std::unique_ptr<Exporter> make_exporter(std::string_view format);
// The names that apply to `s`, in registry order.
std::vector<std::string> format_names(Subject s = Subject::Run);

std::unique_ptr<Exporter> table_exporter();
std::unique_ptr<Exporter> kut_exporter();
std::unique_ptr<Exporter> json_exporter();
std::unique_ptr<Exporter> csv_exporter();
std::unique_ptr<Exporter> markdown_exporter();
std::unique_ptr<Exporter> text_exporter();
std::unique_ptr<Exporter> html_exporter();
std::unique_ptr<Exporter> openmetrics_exporter();
std::unique_ptr<Exporter> ktap_exporter();
std::unique_ptr<Exporter> junit_exporter();

} // namespace eb::report
