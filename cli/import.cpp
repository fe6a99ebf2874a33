// `exitbench import kut FILE...`: other tools' results saved as runs in the
// history, marked as imported; `import run FILE...`: exitbench result files
// (e.g. one a failed save kept), so `compare run:N ...` can set them against
// exitbench's own; `import calibration FILE`: what a calibrate whose save
// failed kept.
#include <CLI/CLI.hpp>
#include <atomic>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "cli/app.h"
#include "cli/command.h"
#include "cli/emit.h"
#include "cli/errors.h"
#include "cli/history.h"
#include "cli/run.h"
#include "lab/imports.h"
#include "lab/profile_files.h"
#include "report/profile_text.h"
#include "report/sanitize.h"
#include "sys/file.h"

namespace eb::cli {

struct ImportArgs {
    std::string db, label, note;
    std::string json;  // perf-kvm: write the parsed tables here
    std::vector<std::string> files;
    bool one_run = false, per_file = false;  // kut: how files make runs (see import_kut.h)
    std::vector<std::string> argv;  // the whole command line, for the runs' provenance
};

struct ImportCommands {
    CLI::App *import, *kut, *run, *perf_kvm, *calibration;
};

namespace {

std::string summary(const lab::RunReport& r) {
    size_t skipped = 0, measured = 0, hung = 0;
    for (const auto& t : r.results)
        (t.status == lab::Status::Skipped ? skipped : t.status == lab::Status::Hung ? hung : measured) += 1;
    return fmt::format("{} test{} with a figure, {} skipped{}", measured, measured == 1 ? "" : "s", skipped,
                       hung ? fmt::format(", {} hung (no result before QEMU ended)", hung) : "");
}

// What was saved as which run; of several logs, each with its sha256.
std::string saved_line(const lab::KutImport& r, int64_t id) {
    const auto& imp = r.run.provenance.imported;
    std::string out = report::printable(fmt::format(
        "imported {} as run {} ({}{})", r.name, id, summary(r.run),
        !imp               ? ""
        : imp->logs.empty() ? fmt::format("; {}, sha256 {}", imp->source, imp->sha256)
                            : fmt::format("; {}, sha256 {} of the logs' sha256sum lines", imp->source, imp->sha256)));
    out += "\n";
    if (imp)
        for (const auto& l : imp->logs)
            out += report::printable(fmt::format("  {}  sha256 {}  {}", l.file, l.sha256, fmt::join(l.tests, " "))) +
                   "\n";
    return out;
}

// Where an import is saved: the same three options for each kind of file.
void add_store_options(CLI::App& cmd, ImportArgs& a, const std::string& what) {
    cmd.add_option("--db", a.db, "the history database (default $XDG_DATA_HOME/exitbench/history.db)");
    cmd.add_option("--label", a.label, "file the " + what + "s under this label");
    cmd.add_option("--note", a.note, "a note saved with each " + what);
}

} // namespace

ImportCommands add_import_commands(CLI::App& app, ImportArgs& a) {
    ImportCommands c;
    c.import = app.add_subcommand("import", "save another tool's results to the history, marked as imported");
    c.import->require_subcommand(1);
    c.import->fallthrough();
    c.kut = c.import->add_subcommand(
        "kut", "kvm-unit-tests vmexit.flat output: its 'name cycles' lines, a run_tests.sh log (logs/*.log) or a "
               "serial console log. The run_tests.sh logs of one directory are one run, as one run_tests.sh "
               "invocation wrote them (each log's sha256 kept; a test in two of them is refused); a directory "
               "stands for its vmexit.flat logs; other tests' run_tests.sh logs are skipped; any other file is a "
               "run of its own");
    c.kut->add_option("files", a.files, "vmexit.flat output files, or a run_tests.sh logs/ directory")->required();
    auto* one = c.kut->add_flag("--one-run", a.one_run, "every file given makes one run (a test in two of them "
                                                        "is refused)");
    c.kut->add_flag("--per-file", a.per_file, "every file a run of its own, run_tests.sh logs too")->excludes(one);
    add_store_options(*c.kut, a, "imported run");
    c.run = c.import->add_subcommand("run", "exitbench result files (what run --json writes, or what a failed "
                                            "save kept): saved to the history as they are; one run per file");
    c.run->add_option("files", a.files, "exitbench result JSON files")->required();
    add_store_options(*c.run, a, "run");
    c.perf_kvm = c.import->add_subcommand(
        "perf-kvm", "perf kvm stat report text (its VM-EXIT, IO Port, MSR and MMIO tables, as printed or pasted): "
                    "checked and shown as exitbench reads it; 'profile compare' takes such a file as either side");
    c.perf_kvm->add_option("files", a.files, "perf kvm stat report text files")->required();
    c.perf_kvm->add_option("--json", a.json, "write every table, as exitbench's profile analysis, to FILE");
    c.calibration = c.import->add_subcommand("calibration", "the file a calibrate whose save failed kept (its "
                                                            "calibration and runs): stores the calibration");
    c.calibration->add_option("files", a.json, "the kept calibration JSON file")->required();
    c.calibration->add_option("--db", a.db, "the history database (default $XDG_DATA_HOME/exitbench/history.db)");
    for (auto* sub : {c.import, c.kut, c.run, c.perf_kvm, c.calibration}) sub->allow_extras(false);
    return c;
}

namespace {

// Not saved to the history: that holds per-test results, and a perf table is
// a per-reason profile. The text stays the record (its sha256 printed);
// --json keeps exitbench's reading of it.
int cmd_import_perf(const ImportArgs& a) {
    if (!a.json.empty()) require_writable(a.json);
    nlohmann::json all = nlohmann::json::array();
    std::string out;
    for (const auto& f : a.files) {  // every file checked before anything is written
        auto read = lab::import_perf_tables(f);
        const auto& tables = read.tables;
        out += report::printable(fmt::format("{}: {} table{} (sha256 {})", f, tables.size(),
                                             tables.size() == 1 ? "" : "s", read.sha256)) + "\n";
        for (const auto& t : tables) {
            out += fmt::format("  {}{}: {} rows, {} samples\n", lab::mode_name(t.mode),
                               t.mode == lab::Mode::VmExit ? fmt::format(" ({})", t.isa) : "", t.rows.size(),
                               t.total_samples);
            // What the reader added to the table's label: an excerpt, rows without a spread.
            for (size_t at = t.imported.find("; "); at != std::string::npos;) {
                size_t next = t.imported.find("; ", at + 2);
                out += report::printable(fmt::format("    {}\n", t.imported.substr(at + 2, next - at - 2)));
                at = next;
            }
        }
        for (auto& j : read.json) all.push_back(std::move(j));
        for (const auto& t : tables) out += "\n" + report::render_perf(t);
    }
    if (!a.json.empty()) sys::write_file(a.json, all.dump(2) + "\n");
    out += "count, min, max, mean and +-% only (no percentiles); compare with an exitbench trace: "
           "exitbench profile compare FILE TRACE --event vmexit|ioport|msr|mmio\n";
    write_stdout(out);
    return kOk;
}

// The calibration is stored as it was computed; every row is checked first,
// as compare checks it on reading.
int cmd_import_calibration(const ImportArgs& a) {
    std::string path = db_path(a.db);
    int64_t id = lab::import_calibration(a.json, path);
    write_stdout(report::printable(fmt::format("stored as calibration {} in {}", id, path)) + "\n");
    return kOk;
}

} // namespace

int cmd_import(const ImportCommands& c, const ImportArgs& a, const std::atomic<bool>& stop) {
    if (*c.perf_kvm) return cmd_import_perf(a);
    if (*c.calibration) return cmd_import_calibration(a);
    // Every file is read and checked before any is saved: a bad one saves nothing.
    std::string path = db_path(a.db);
    require_saveable(path);
    std::vector<lab::KutImport> runs;
    std::string out;
    if (*c.run) {
        runs = lab::import_result_files(a.files);
    } else {
        auto g = a.one_run ? lab::KutGrouping::OneRun : a.per_file ? lab::KutGrouping::PerFile : lab::KutGrouping::Auto;
        std::string notes;  // one line each
        runs = lab::import_kut(a.files, g, a.argv, notes);
        for (size_t at = 0, nl; (nl = notes.find('\n', at)) != std::string::npos; at = nl + 1)
            out += report::printable(notes.substr(at, nl - at)) + "\n";
    }
    write_stdout(out);
    out.clear();
    // Each run is said as soon as it is saved: a stop or a kill leaves no run saved unsaid.
    size_t saved = lab::save_imports(path, runs, a.label, a.note, stop,
                                     [](const lab::KutImport& r, int64_t id) { write_stdout(saved_line(r, id)); });
    if (saved < runs.size()) {
        std::vector<std::string> rest;
        for (size_t i = saved; i < runs.size() && rest.size() < 3; ++i) rest.push_back(runs[i].name);
        size_t more = runs.size() - saved - rest.size();
        fmt::print(stderr, "exitbench: interrupted: {} of {} runs saved (listed above); not saved: {}{}\n", saved,
                   runs.size(), report::printable(fmt::format("{}", fmt::join(rest, ", "))),
                   more ? fmt::format(" and {} more", more) : "");
        return kInterrupted;
    }
    out += report::printable(fmt::format("saved in {}; compare them with: exitbench compare run:ID run:ID (or "
                                         "label:NAME)", path)) + "\n";
    write_stdout(out);
    return kOk;
}

namespace {

class ImportCommand : public Command {
public:
    explicit ImportCommand(CLI::App& root) : Command(nullptr), c_(add_import_commands(root, args_)) { app_ = c_.import; }
    int run(const Context& ctx) override {
        args_.argv = ctx.argv;
        return cmd_import(c_, args_, ctx.interrupted);
    }
    bool polls() const override { return !c_.perf_kvm->parsed(); }  // kut and run stop between two saves

private:
    ImportArgs args_;
    ImportCommands c_;
};

} // namespace

std::unique_ptr<Command> import_command(CLI::App& root) { return std::make_unique<ImportCommand>(root); }

} // namespace eb::cli
