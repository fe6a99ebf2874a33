#include "cli/history.h"
#include "cli/emit.h"
#include "cli/export.h"
#include "cli/run.h"
#include "report/flame.h"

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
#include "cli/suggest.h"
#include "history/store.h"
#include "result/calibration_json.h"
#include "result/json.h"
#include "report/sanitize.h"
#include "sys/file.h"
#include "sys/io.h"
#include "stats/summary.h"

namespace eb::cli {

namespace {

using history::Store;

// Every store problem is bad input: one line, exit 2. Another user's read
// is immutable (history/path.cpp), and a writer's checkpoint overlapping it
// reads as "malformed" for that instant: a read is tried again a few times
// (375 ms in all) before that is taken for the store's state. Commands
// print only after their queries, so a retry repeats no output.
template <class F>
auto with_store(const std::string& db, Store::Mode mode, F&& f) {
    for (int wait_ms = 25;; wait_ms *= 2) {
        try {
            Store st(db_path(db), mode);
            return f(st);
        } catch (const history::StoreError& e) {
            bool again = mode == Store::Mode::ReadOnly && wait_ms <= 200 &&
                         std::string_view(e.what()).find("malformed") != std::string_view::npos;
            if (!again) throw UsageError(e.what());
            std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
        }
    }
}

int64_t parse_id(const std::string& s) {
    std::string digits = s.starts_with("run:") ? s.substr(4) : s;
    if (digits.empty() || digits.size() > 18 || !std::all_of(digits.begin(), digits.end(), ::isdigit))
        throw UsageError(fmt::format("'{}' is not a run id (a number, as 'history list' shows)", s));
    return std::stoll(digits);
}

[[noreturn]] void unknown_id(Store& st, int64_t id) {
    std::vector<std::string> ids;
    for (auto i : st.ids()) ids.push_back(std::to_string(i));
    auto s = suggest(std::to_string(id), ids);
    throw UsageError(fmt::format("no run {} in {}{}", id, st.path(), s ? fmt::format(" (did you mean {}?)", *s) : ""));
}

history::RunRow require_run(Store& st, int64_t id) {
    auto row = st.run(id);
    if (!row) unknown_id(st, id);
    return *row;
}

suite::RunReport parse_saved(const std::string& text, int64_t id) {
    try {
        return result::from_json(nlohmann::json::parse(text));
    } catch (const InputError& e) {
        throw InputError(fmt::format("run {}: the saved result does not read back: {}", id, e.what()));
    } catch (const nlohmann::json::exception& e) {
        throw InputError(fmt::format("run {}: the saved result does not read back: {}", id, e.what()));
    }
}

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
        auto s = suggest(a.label, st.labels());
        throw UsageError(fmt::format("no run is labelled '{}'{}", a.label, s ? fmt::format(" (did you mean '{}'?)", *s) : ""));
    }
    say("{:>5}  {:<20}  {:<16}  {:<24}  {:<12}  {}", "id", "time (UTC)", "host", "kernel", "label", "tests");
    // An imported run's host is unknown; the column names the tool instead.
    for (const auto& r : rows)
        say("{:>5}  {:<20}  {:<16}  {:<24}  {:<12}  {}", r.id, r.timestamp_utc,
                   r.source.empty() ? r.hostname : "[" + r.source + "]", r.kernel_release.empty() ? "-" : r.kernel_release,
                   r.label.empty() ? "-" : r.label, fmt::join(r.tests, " "));
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
        auto h = suite::headline(t);
        std::vector<std::string> meds;
        for (const auto& s : t.sessions) meds.push_back(fmt::format("{:.1f}", stats::median(s.samples)));
        say("{:<24} {:<12} {:>9} {:>14}  {}", t.name, suite::status_name(t.status), t.sessions.size(),
                   h ? fmt::format("{:.1f}", h->cycles) : "-", fmt::join(meds, " "));
    }
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

// What a failed save kept: `text` written beside the store, else in TMPDIR,
// as DB.unsaved-STAMP-PID[-N].json; then the command that stores it, made
// from the file's name by `command`. False if no file could be written.
bool keep_in_file(const std::string& db, std::string stamp, const std::string& text,
                  const std::function<std::string(const std::string&)>& command) {
    stamp.erase(std::remove(stamp.begin(), stamp.end(), ':'), stamp.end());
    std::string base = fmt::format("{}.unsaved-{}-{}", std::filesystem::path(db).filename().string(), stamp,
                                   ::getpid());
    std::error_code ec;
    auto tmp = std::filesystem::temp_directory_path(ec);  // TMPDIR, else /tmp
    for (auto dir : {std::filesystem::path(db).parent_path(), ec ? std::filesystem::path("/tmp") : tmp}) {
        // A live compare keeps one file per configuration: never one over another.
        std::string kept = (dir / (base + ".json")).string();
        for (int n = 2; std::filesystem::exists(kept, ec); ++n)
            kept = (dir / fmt::format("{}-{}.json", base, n)).string();
        try {
            sys::write_file(kept, text);
        } catch (const std::exception& e) {
            fmt::print(stderr, "exitbench: error: {}\n", report::printable(e.what()));
            continue;
        }
        // The command is printable ASCII by construction (shell_word), and must stay pasteable.
        fmt::print(stderr, "exitbench: the result is kept in {}; to save it: {}\n", report::printable(kept),
                   command(kept));
        return true;
    }
    fmt::print(stderr, "exitbench: error: the result could not be kept in a file either; it is on stdout only\n");
    return false;
}

void keep_unsaved(const std::string& db, const suite::RunReport& r, const std::string& label,
                  const std::string& note) {
    keep_in_file(db, r.provenance.timestamp_utc, result::to_json(r).dump(2) + "\n", [&](const std::string& kept) {
        std::string cmd = fmt::format("exitbench import run {} --db {}", report::shell_word(kept),
                                      report::shell_word(db));
        if (!label.empty()) cmd += " --label " + report::shell_word(label);
        if (!note.empty()) cmd += " --note " + report::shell_word(note);
        return cmd;
    });
}

} // namespace

std::string db_path(const std::string& db) {
    if (!db.empty()) return db;
    try {
        return history::default_path();
    } catch (const history::StoreError& e) {
        throw UsageError(e.what());
    }
}

void require_saveable(const std::string& db) {
    try {
        history::check_save_target(db_path(db));
    } catch (const history::StoreError& e) {
        throw UsageError(e.what());
    }
}

bool save_run(const std::string& db, const suite::RunReport& r, const std::string& label, const std::string& note) {
    std::string path = db_path(db);
    try {
        auto id = history::save_run(path, r, label, note);
        cli::note(fmt::format("saved as run {} in {}", id, report::printable(path)));
        return true;
    } catch (const std::exception& e) {
        fmt::print(stderr, "exitbench: error: not saved to the history: {}\n", report::printable(e.what()));
    }
    keep_unsaved(path, r, label, note);
    return false;
}

bool keep_unsaved_calibration(const std::string& db, const std::string& why, const suite::Calibration& c,
                              const std::vector<suite::RunReport>& runs) {
    fmt::print(stderr, "exitbench: error: the calibration is not stored: {}\n", report::printable(why));
    nlohmann::json doc{{"schema", result::kCalibrationFileSchema}, {"calibration", result::calibration_to_json(c)},
                       {"runs", nlohmann::json::array()}};
    for (const auto& r : runs) doc["runs"].push_back(result::to_json(r));
    return keep_in_file(db, c.timestamp_utc, doc.dump(2) + "\n", [&](const std::string& kept) {
        return fmt::format("exitbench import calibration {} --db {}", report::shell_word(kept), report::shell_word(db));
    });
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
        int64_t id = parse_id(a.id);
        if (*c.show) return show_run(st, id);
        if (*c.rm) return remove_run(st, id, a.yes);
        require_run(st, id);
        std::cout << result::to_json(parse_saved(*st.result_json(id), id)).dump(2) << "\n" << std::flush;
        return kOk;
    });
}

suite::RunReport load_result(const std::string& path, const std::string& db) {
    if (is_history_ref(path)) return load_saved_run(db, path);
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))  // it opens, and its first read throws libstdc++'s text
        throw UsageError(fmt::format("{}: a directory, not a result file", path));
    // Only a regular file: a FIFO would be waited on for ever, a device read without end.
    std::istringstream f(sys::read_regular(path));
    try {
        return result::from_json(result::parse_document(f, path));
    } catch (const InputError& e) {
        std::string why = e.what();
        throw InputError(why.rfind(path, 0) == 0 ? why : path + ": " + why);
    }
}

bool is_history_ref(const std::string& s) { return s.starts_with("label:") || s.starts_with("run:"); }

std::vector<std::string> expand_ref(const std::string& db, const std::string& ref) {
    return with_store(db, Store::Mode::ReadOnly, [&](Store& st) {
        std::vector<std::string> out;
        if (ref.starts_with("run:")) {
            out.push_back("run:" + std::to_string(require_run(st, parse_id(ref)).id));
            return out;
        }
        std::string label = ref.substr(6);
        for (auto id : st.runs_with_label(label)) out.push_back("run:" + std::to_string(id));
        if (out.empty()) {
            auto s = suggest(label, st.labels());
            throw UsageError(fmt::format("no run is labelled '{}' in {}{}", label, st.path(),
                                         s ? fmt::format(" (did you mean label:{}?)", *s) : ""));
        }
        return out;
    });
}

std::vector<std::vector<std::string>> against_last(const std::string& db) {
    return with_store(db, Store::Mode::ReadOnly, [&](Store& st) {
        auto last = st.newest();
        if (!last) throw UsageError(fmt::format("--against last: no saved run in {}", st.path()));
        auto prev = st.previous_like(*last);
        if (!prev)
            throw UsageError(fmt::format("--against last: no run before run {} has the same tests on the same host", *last));
        return std::vector<std::vector<std::string>>{{"run:" + std::to_string(*prev)}, {"run:" + std::to_string(*last)}};
    });
}

suite::RunReport load_saved_run(const std::string& db, const std::string& ref) {
    int64_t id = parse_id(ref);
    return with_store(db, Store::Mode::ReadOnly, [&](Store& st) {
        require_run(st, id);
        return parse_saved(*st.result_json(id), id);
    });
}

} // namespace eb::cli
