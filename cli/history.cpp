#include "cli/history.h"
#include "cli/command.h"
#include "cli/emit.h"
#include "cli/export.h"
#include "cli/run.h"
#include "report/flame.h"
#include "report/host_profile_text.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <unistd.h>

#include "cli/app.h"
#include "cli/errors.h"
#include "lab/suggest.h"
#include "result/calibration_json.h"
#include "result/json.h"
#include "report/sanitize.h"
#include "sys/file.h"
#include "sys/io.h"

namespace eb::cli {

namespace {

using lab::Store;
using lab::parse_saved;
using lab::require_run;
using lab::with_store;

// Labels, notes, host names, file names and command lines come from a store
// that may be shared: every line goes through the printable filter.
template <class... A>
void say(fmt::format_string<A...> f, A&&... args) {
    fmt::print("{}\n", report::printable(fmt::format(f, std::forward<A>(args)...)));
}

// YYYY-MM-DD, then optionally THH, :MM and :SS, and Z after a time.
bool is_utc_date(std::string_view s) {
    constexpr std::string_view shape = "dddd-dd-ddTdd:dd:dd";
    if (s.size() > 13 && s.back() == 'Z') s.remove_suffix(1);  // Z only after a time
    if (s.size() != 10 && s.size() != 13 && s.size() != 16 && s.size() != 19) return false;
    for (size_t i = 0; i < s.size(); ++i) {
        bool ok = shape[i] == 'd' ? std::isdigit(static_cast<unsigned char>(s[i])) != 0 : s[i] == shape[i];
        if (!ok) return false;
    }
    return true;
}

int list_runs(Store& st, const HistoryArgs& a) {
    if (!a.since.empty() && !is_utc_date(a.since))
        throw UsageError(fmt::format("--since takes a UTC date, YYYY-MM-DD[THH:MM[:SS]], not '{}'", a.since));
    auto rows = st.list({a.label, a.test, a.since});
    if (!a.label.empty() && rows.empty() && st.runs_with_label(a.label).empty()) {
        auto s = lab::suggest(a.label, st.labels());
        throw UsageError(fmt::format("no run is labelled '{}'{}", a.label, s ? fmt::format(" (did you mean '{}'?)", *s) : ""));
    }
    say("{:>5}  {:<20}  {:<16}  {:<24}  {:<12}  {:<10}  {}", "id", "time (UTC)", "host", "kernel", "label", "backend",
        "tests");
    // An imported run's host is unknown; the column names the tool instead.
    for (const auto& r : rows)
        say("{:>5}  {:<20}  {:<16}  {:<24}  {:<12}  {:<10}  {}", r.id, r.timestamp_utc,
                   r.source.empty() ? r.hostname : "[" + r.source + "]", r.kernel_release.empty() ? "-" : r.kernel_release,
                   r.label.empty() ? "-" : r.label, r.backend.empty() ? "-" : r.backend, fmt::join(r.tests, " "));
    if (rows.empty()) say("(no saved runs match in {})", st.path());
    return kOk;
}

int show_run(Store& st, int64_t id) {
    auto row = require_run(st, id);
    auto rep = parse_saved(*st.result_json(id), id);
    size_t facts = st.env(id).size();  // every query before the first line printed
    say("run {}  {}  label {}", row.id, row.timestamp_utc, row.label.empty() ? "-" : row.label);
    if (!row.note.empty()) say("note       {}", row.note);
    if (const auto& im = rep.provenance.imported) {
        say("imported   from {}: {} (sha256 {}{}); its host, boot and environment are unknown", im->source,
                   im->file, im->sha256, im->logs.empty() ? "" : " of the logs' sha256sum lines");
        for (const auto& l : im->logs) say("  log      {} (sha256 {}): {}", l.file, l.sha256, fmt::join(l.tests, " "));
    } else {
        say("host       {} ({}, kernel {})", row.hostname, rep.host.cpu_model, row.kernel_release);
        say("boot id    {}", row.boot_id);
    }
    say("exitbench  {}{}", row.tool_version,
               rep.provenance.git_describe.empty() ? "" : " (git " + rep.provenance.git_describe + ")");
    say("command    {}", fmt::join(rep.provenance.argv, " "));
    say("environment: {} facts ('history export {} --json' has them all)", facts, id);
    say("{:<24} {:<12} {:>9} {:>14}  {}", "test", "status", "sessions", "cycles/iter", "session medians");
    for (const auto& t : rep.results) {
        auto h = lab::headline(t);
        std::vector<std::string> meds;
        for (const auto& s : t.sessions) meds.push_back(fmt::format("{:.1f}", lab::median(s.samples)));
        say("{:<24} {:<12} {:>9} {:>14}  {}", t.name, lab::status_name(t.status), t.sessions.size(),
                   h ? fmt::format("{:.1f}", h->cycles) : "-", fmt::join(meds, " "));
    }
    // The host profile saved with the run (run --host-profile), as run printed it.
    if (auto hp = report::render_saved_host_profile(rep); !hp.empty())
        write_stdout("\nhost profile, saved with the run (run --host-profile):" + hp);
    return kOk;
}

int remove_run(Store& st, int64_t id, bool yes) {
    auto row = require_run(st, id);
    if (!yes) {
        if (!isatty(STDIN_FILENO))
            throw UsageError(fmt::format("history rm: not asking without a terminal; add --yes to remove run {}", id));
        fmt::print("{}", report::printable(fmt::format("remove run {} ({}, label {})? [y/N] ", id, row.timestamp_utc,
                                                       row.label.empty() ? "-" : row.label)));
        std::fflush(stdout);
        std::string answer;
        std::getline(std::cin, answer);
        if (answer != "y" && answer != "Y" && answer != "yes") {
            say("kept run {}", id);
            return kOk;
        }
    }
    st.remove(id);
    say("removed run {}", id);
    return kOk;
}

// Session medians in time order; the bar spans the range seen, so a shift
// between kernels or microcode stands out.
int trend(Store& st, const std::string& test, const std::string& host, const std::string& html) {
    if (!html.empty() && html != "-") require_writable(html);
    auto pts = st.trend(test, host);
    if (pts.empty())
        throw UsageError(fmt::format("no saved session of '{}'{} in {}", test,
                                     host.empty() ? "" : " on host " + host, st.path()));
    if (!html.empty()) {
        std::vector<report::TrendRow> rows;
        for (const auto& p : pts)
            rows.push_back({p.timestamp_utc, p.label, p.hostname, p.run_id, p.session, p.median_cycles});
        if (html == "-") {  // stdout: the page instead of the text
            write_stdout(report::render_trend_html(test, rows));
            return kOk;
        }
        if (!write_export("html", html, [&] { return report::render_trend_html(test, rows); })) return kHost;
    }
    auto [lo, hi] = std::minmax_element(pts.begin(), pts.end(),
                                        [](const auto& a, const auto& b) { return a.median_cycles < b.median_cycles; });
    double min = lo->median_cycles, span = hi->median_cycles - min;
    say("{} session medians, cycles/iter ({} sessions; bar: {:.1f} to {:.1f})", test, pts.size(), min,
               hi->median_cycles);
    for (const auto& p : pts) {
        int width = span > 0 ? int(1 + 39 * (p.median_cycles - min) / span) : 1;
        say("{:<20}  run {:>4}  {:<12}  {:<16} s{:<2} {:>10.1f}  {}", p.timestamp_utc, p.run_id,
                   p.label.empty() ? "-" : p.label, p.hostname, p.session, p.median_cycles, std::string(width, '#'));
    }
    return kOk;
}

} // namespace

bool save_run(const std::string& db, const lab::RunReport& r, const std::string& label, const std::string& note) {
    auto id = lab::save_run(db, r, label, note);
    if (id) cli::note(fmt::format("saved as run {} in {}", *id, report::printable(db_path(db))));
    return id.has_value();
}

HistoryCommands add_history_commands(CLI::App& app, HistoryArgs& a) {
    HistoryCommands c;
    c.history = app.add_subcommand("history", "saved runs: list, show, export, rm, trend");
    c.history->require_subcommand(1);
    c.history->fallthrough();  // --db after the subcommand too: history list --db X
    c.history->add_option("--db", a.db, "the history database (default $XDG_DATA_HOME/exitbench/history.db)");
    c.list = c.history->add_subcommand("list", "one line per saved run: time, host, kernel, label, tests");
    c.list->add_option("--label", a.label, "only runs with this label");
    c.list->add_option("--test", a.test, "only runs of this test");
    c.list->add_option("--since", a.since, "only runs at or after this UTC date, YYYY-MM-DD[THH:MM[:SS]]");
    c.show = c.history->add_subcommand("show", "a saved run: provenance and each test's session medians");
    c.show->add_option("id", a.id, "run id")->required();
    c.export_run = c.history->add_subcommand("export", "print a saved run's result JSON (what 'run --json' writes)");
    c.export_run->add_option("id", a.id, "run id")->required();
    c.export_run->add_flag("--json", a.json, "as JSON (the only format)")->required();
    c.rm = c.history->add_subcommand("rm", "remove a saved run (asks on a terminal)");
    c.rm->add_option("id", a.id, "run id")->required();
    c.rm->add_flag("--yes", a.yes, "remove without asking");
    c.trend = c.history->add_subcommand("trend", "a test's session medians over time");
    c.trend->add_option("test", a.test, "test name")->required();
    c.trend->add_option("--host", a.host, "only runs on this host");
    c.trend->add_option("--export-html", a.trend_html,
                        "also write the trend as a chart on one self-contained offline page to FILE ('-': stdout, "
                        "instead of the text)")
        ->type_name("FILE");
    for (auto* sub : {c.history, c.list, c.show, c.export_run, c.rm, c.trend}) sub->allow_extras(false);
    return c;
}

int cmd_history(const HistoryCommands& c, const HistoryArgs& a) {
    bool writes = c.rm->parsed();  // rm deletes from an existing store, never makes one
    return with_store(a.db, writes ? Store::Mode::Modify : Store::Mode::ReadOnly, [&](Store& st) -> int {
        if (*c.list) return list_runs(st, a);
        if (*c.trend) return trend(st, a.test, a.host, a.trend_html);
        int64_t id = lab::parse_run_id(a.id);
        if (*c.show) return show_run(st, id);
        if (*c.rm) return remove_run(st, id, a.yes);
        require_run(st, id);
        std::cout << result::to_json(parse_saved(*st.result_json(id), id)).dump(2) << "\n" << std::flush;
        return kOk;
    });
}

namespace {

class HistoryCommand : public Command {
public:
    explicit HistoryCommand(CLI::App& root) : Command(nullptr), c_(add_history_commands(root, args_)) { app_ = c_.history; }
    int run(const Context&) override { return cmd_history(c_, args_); }
    bool polls() const override { return false; }

private:
    HistoryArgs args_;
    HistoryCommands c_;
};

} // namespace

std::unique_ptr<Command> history_command(CLI::App& root) { return std::make_unique<HistoryCommand>(root); }

} // namespace eb::cli
