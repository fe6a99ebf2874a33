#include "history/store.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "history/path.h"
#include "history/stmt.h"
#include "result/json.h"
#include "stats/summary.h"

namespace eb::history {

namespace fs = std::filesystem;
using nlohmann::json;
using detail::Stmt;
using detail::db_error;

namespace {

// 'EBH1': marks a database as exitbench's, so a foreign SQLite file is refused
// rather than migrated into.
constexpr int kApplicationId = 0x45424831;

// Migration i takes the schema from version i to i + 1; never edit one that
// has shipped, append another.
const char* const kMigrations[] = {
    R"sql(
    CREATE TABLE runs(
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        timestamp_utc TEXT NOT NULL, hostname TEXT NOT NULL, kernel_release TEXT NOT NULL,
        boot_id TEXT NOT NULL, tool_version TEXT NOT NULL, git_describe TEXT NOT NULL,
        argv_json TEXT NOT NULL, label TEXT NOT NULL, note TEXT NOT NULL,
        tests TEXT NOT NULL,            -- sorted test names, space-separated
        result_json TEXT NOT NULL);     -- the whole result, as `run --json` writes it
    CREATE INDEX runs_label ON runs(label);
    CREATE TABLE sessions(
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        test TEXT NOT NULL, session INTEGER NOT NULL,
        status TEXT NOT NULL,           -- the test's status, the worst over its sessions
        iterations INTEGER NOT NULL,    -- batch size
        median_cycles REAL NOT NULL,
        repeats_json TEXT NOT NULL,     -- cycles per iteration, one per repeat
        exit_kind TEXT NOT NULL, exits_per_iter REAL,
        PRIMARY KEY(run_id, test, session));
    CREATE INDEX sessions_test ON sessions(test);
    CREATE TABLE env(
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        key TEXT NOT NULL, value TEXT NOT NULL,
        PRIMARY KEY(run_id, key));
    )sql",
    // Imported runs: the tool they came from ('' for exitbench's own runs).
    R"sql(
    ALTER TABLE runs ADD COLUMN source TEXT NOT NULL DEFAULT '';
    )sql",
    // Calibrations (exitbench calibrate): per test, the variance each level
    // adds with its df, what each level costs, and each run's session log
    // medians (later calibrations in other boots estimate the boot level).
    R"sql(
    CREATE TABLE calibrations(
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        timestamp_utc TEXT NOT NULL, hostname TEXT NOT NULL, kernel_release TEXT NOT NULL,
        backend TEXT NOT NULL, cpu_model TEXT NOT NULL, boot_id TEXT NOT NULL, tool_version TEXT NOT NULL,
        settings TEXT NOT NULL,         -- suite::settings_key: what a run must share to borrow it
        runs INTEGER NOT NULL, sessions INTEGER NOT NULL, repeats INTEGER NOT NULL);
    CREATE INDEX calibrations_host ON calibrations(hostname, kernel_release);
    CREATE TABLE calibration_tests(
        calibration_id INTEGER NOT NULL REFERENCES calibrations(id) ON DELETE CASCADE,
        test TEXT NOT NULL,
        repeat_var REAL NOT NULL, repeat_df REAL NOT NULL, session_var REAL NOT NULL, session_df REAL NOT NULL,
        run_var REAL NOT NULL, run_df REAL NOT NULL,
        run_mean_var REAL NOT NULL, run_mean_df REAL NOT NULL,
        session_median_var REAL NOT NULL, session_median_df REAL NOT NULL,
        inv_sessions REAL NOT NULL, mean_repeats REAL NOT NULL, used_runs INTEGER NOT NULL, used_sessions INTEGER NOT NULL,
        run_cost_s REAL NOT NULL, session_cost_s REAL NOT NULL, repeat_cost_s REAL NOT NULL,
        session_logs_json TEXT NOT NULL,  -- per run: its sessions' log medians
        PRIMARY KEY(calibration_id, test));
    )sql",
};
static_assert(std::size(kMigrations) == kStoreVersion);

int pragma_int(sqlite3* db, const char* sql) {
    Stmt s(db, sql);
    return s.step() ? static_cast<int>(s.integer(0)) : 0;
}

struct Shape {
    int app = 0, version = 0, tables = 0;
};

Shape read_shape(sqlite3* db) {
    return {pragma_int(db, "PRAGMA application_id"),  // the first read fails on a file that is not SQLite
            pragma_int(db, "PRAGMA user_version"), pragma_int(db, "SELECT count(*) FROM sqlite_schema")};
}

void refuse_foreign(const Shape& sh) {
    if (sh.app != kApplicationId && (sh.app != 0 || sh.tables > 0))
        throw StoreError("not an exitbench history database (another program's SQLite file)");
    if (sh.version > kStoreVersion)
        throw StoreError(fmt::format("history schema version {} is newer than this exitbench reads ({}); "
                                     "use a newer exitbench or another --db", sh.version, kStoreVersion));
}

std::vector<std::string> split_words(const std::string& s) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < s.size()) {
        size_t j = s.find(' ', i);
        if (j == std::string::npos) j = s.size();
        if (j > i) out.push_back(s.substr(i, j - i));
        i = j + 1;
    }
    return out;
}

// The backend is read from the stored result (SQLite's JSON functions), as
// suite::backend_label says it: no column of its own, so no migration.
const char* kRunColumns =
    "id, timestamp_utc, hostname, kernel_release, boot_id, tool_version, label, note, tests, source, "
    "coalesce(json_extract(result_json, '$.host.backend_module'), ''), "
    "coalesce(json_extract(result_json, '$.boot.execution'), '')";

RunRow row_from(Stmt& s) {
    std::string backend = s.text(10), execution = s.text(11);
    if (execution == "emulated") backend += " nested under QEMU TCG, emulated";
    return {s.integer(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5), s.text(6), s.text(7),
            split_words(s.text(8)), s.text(9), backend};
}

std::string test_list(const suite::RunReport& r) {
    std::vector<std::string> names;
    for (const auto& t : r.results) names.push_back(t.name);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return fmt::format("{}", fmt::join(names, " "));
}

} // namespace

std::string default_path() {
    const char* xdg = std::getenv("XDG_DATA_HOME");
    if (xdg && *xdg == '/') return (fs::path(xdg) / "exitbench" / "history.db").string();
    const char* home = std::getenv("HOME");
    if (!home || !*home) throw StoreError("no history database: neither XDG_DATA_HOME nor HOME is set (use --db PATH)");
    return (fs::path(home) / ".local" / "share" / "exitbench" / "history.db").string();
}

Store::Store(const std::string& path, Mode mode) : path_(path) {
    check_db_path(path);
    std::error_code ec;
    bool exists = fs::exists(path, ec);
    if (mode != Mode::ReadWrite && !exists)
        throw StoreError(fmt::format("no history database at {} (run saves there by default, or name one with --db)", path));
    if (exists && !fs::is_regular_file(path, ec))
        throw StoreError(fmt::format("history database {}: not a regular file", path));
    if (mode == Mode::ReadWrite && fs::path(path).has_parent_path()) {
        fs::create_directories(fs::path(path).parent_path(), ec);
        if (ec) throw StoreError(fmt::format("cannot create {}: {}", fs::path(path).parent_path().string(), ec.message()));
    }
    bool reads = mode == Mode::ReadOnly || mode == Mode::Check;
    int flags = SQLITE_OPEN_URI | (reads                  ? SQLITE_OPEN_READONLY
                                   : mode == Mode::Modify ? SQLITE_OPEN_READWRITE
                                                          : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    // Check precedes a save, which takes the locks anyway: never immutable.
    std::string uri = file_uri(path) + (mode == Mode::ReadOnly && reads_as_immutable(path) ? "?immutable=1" : "");
    if (sqlite3_open_v2(uri.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
        std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw StoreError(fmt::format("cannot open history database {}: {}", path, why));
    }
    sqlite3_busy_timeout(db_, 30000);  // other exitbench processes may be saving
    try {
        migrate(mode);
        exec("PRAGMA foreign_keys = ON");
    } catch (const StoreError& e) {
        sqlite3_close(db_);
        db_ = nullptr;
        std::string why = e.what();
        throw StoreError(why.starts_with("history database ") ? why : fmt::format("history database {}: {}", path, why));
    }
}

Store::~Store() { sqlite3_close(db_); }

void Store::exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string why = detail::db_why(db_, err);
        sqlite3_free(err);
        throw StoreError(fmt::format("history database {}: {}", path_, why));
    }
}

// Refuses what is not ours or too new, then brings an older schema up to date
// under the write lock; a concurrent opener waits and then finds nothing to do.
void Store::migrate(Mode mode) {
    // One read transaction: a store another process is creating is seen
    // before or after, never half made.
    exec("BEGIN");
    Shape sh;
    try {
        sh = read_shape(db_);
        exec("COMMIT");
    } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
    refuse_foreign(sh);
    if (sh.version == kStoreVersion || mode == Mode::Check) return;
    if (mode == Mode::ReadOnly)
        throw StoreError(sh.tables == 0 ? "empty: no run has been saved to it"
                                        : fmt::format("history schema version {} needs migrating; a run that "
                                                      "saves does that", sh.version));
    exec("BEGIN IMMEDIATE");
    try {
        sh = read_shape(db_);
        refuse_foreign(sh);
        for (int v = sh.version; v < kStoreVersion; ++v) exec(kMigrations[v]);
        exec(fmt::format("PRAGMA application_id = {}", kApplicationId));
        exec(fmt::format("PRAGMA user_version = {}", kStoreVersion));
        exec("COMMIT");
    } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
    // Readers and one writer at once; persistent in the file. Set once the
    // file is known to be ours, never on someone else's. Changing the journal
    // mode can report "locked" without waiting on the busy handler while
    // other openers read, so it is retried; if it never succeeds the store
    // stays in rollback-journal mode, which is slower but just as correct.
    for (int i = 0; i < 100; ++i) {
        if (sqlite3_exec(db_, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr) == SQLITE_OK) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

int64_t Store::save(const suite::RunReport& r, const std::string& label, const std::string& note) {
    const auto& p = r.provenance;
    exec("BEGIN IMMEDIATE");
    try {
        Stmt run(db_, "INSERT INTO runs(timestamp_utc, hostname, kernel_release, boot_id, tool_version, git_describe, "
                      "argv_json, label, note, tests, result_json, source) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
        run.bind(1, p.timestamp_utc).bind(2, p.hostname).bind(3, r.host.kernel_release).bind(4, p.boot_id);
        run.bind(5, r.tool_version).bind(6, p.git_describe).bind(7, json(p.argv).dump()).bind(8, label);
        run.bind(9, note).bind(10, test_list(r)).bind(11, result::to_json(r).dump());
        run.bind(12, p.imported ? p.imported->source : std::string());
        run.step();
        int64_t id = sqlite3_last_insert_rowid(db_);
        Stmt ses(db_, "INSERT INTO sessions(run_id, test, session, status, iterations, median_cycles, repeats_json, "
                      "exit_kind, exits_per_iter) VALUES(?,?,?,?,?,?,?,?,?)");
        for (const auto& t : r.results)
            for (size_t k = 0; k < t.sessions.size(); ++k) {
                const auto& s = t.sessions[k];
                ses.reset();
                ses.bind(1, id).bind(2, t.name).bind(3, int64_t(k)).bind(4, std::string(suite::status_name(t.status)));
                ses.bind(5, int64_t(s.iterations)).bind(6, stats::median(s.samples)).bind(7, json(s.samples).dump());
                ses.bind(8, t.exits.kind);
                if (t.exits.measured) ses.bind(9, *t.exits.measured);
                else ses.bind_null(9);
                ses.step();
            }
        Stmt env(db_, "INSERT OR REPLACE INTO env(run_id, key, value) VALUES(?,?,?)");
        for (const auto& [k, v] : r.env) {
            env.reset();
            env.bind(1, id).bind(2, k).bind(3, v);
            env.step();
        }
        exec("COMMIT");
        return id;
    } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

std::vector<RunRow> Store::list(const Filter& f) {
    auto sql = fmt::format("SELECT {} FROM runs WHERE (?1 = '' OR label = ?1) AND (?3 = '' OR timestamp_utc >= ?3) "
                           "AND (?2 = '' OR instr(' ' || tests || ' ', ' ' || ?2 || ' ') > 0) ORDER BY id",
                           kRunColumns);
    Stmt s(db_, sql.c_str());
    s.bind(1, f.label).bind(2, f.test).bind(3, f.since);
    std::vector<RunRow> out;
    while (s.step()) out.push_back(row_from(s));
    return out;
}

std::optional<RunRow> Store::run(int64_t id) {
    auto sql = fmt::format("SELECT {} FROM runs WHERE id = ?", kRunColumns);
    Stmt s(db_, sql.c_str());
    s.bind(1, id);
    if (!s.step()) return std::nullopt;
    return row_from(s);
}

std::optional<std::string> Store::result_json(int64_t id) {
    Stmt s(db_, "SELECT result_json FROM runs WHERE id = ?");
    s.bind(1, id);
    if (!s.step()) return std::nullopt;
    return s.text(0);
}

std::vector<std::pair<std::string, std::string>> Store::env(int64_t id) {
    Stmt s(db_, "SELECT key, value FROM env WHERE run_id = ? ORDER BY key");
    s.bind(1, id);
    std::vector<std::pair<std::string, std::string>> out;
    while (s.step()) out.emplace_back(s.text(0), s.text(1));
    return out;
}

bool Store::remove(int64_t id) {
    Stmt s(db_, "DELETE FROM runs WHERE id = ?");
    s.bind(1, id);
    s.step();
    return sqlite3_changes(db_) > 0;
}

std::vector<int64_t> Store::runs_with_label(const std::string& label) {
    Stmt s(db_, "SELECT id FROM runs WHERE label = ? ORDER BY id");
    s.bind(1, label);
    std::vector<int64_t> out;
    while (s.step()) out.push_back(s.integer(0));
    return out;
}

std::vector<std::string> Store::labels() {
    Stmt s(db_, "SELECT DISTINCT label FROM runs WHERE label != '' ORDER BY label");
    std::vector<std::string> out;
    while (s.step()) out.push_back(s.text(0));
    return out;
}

std::vector<int64_t> Store::ids() {
    Stmt s(db_, "SELECT id FROM runs ORDER BY id");
    std::vector<int64_t> out;
    while (s.step()) out.push_back(s.integer(0));
    return out;
}

std::vector<TrendPoint> Store::trend(const std::string& test, const std::string& host) {
    Stmt s(db_, "SELECT r.id, r.timestamp_utc, r.hostname, r.label, s.session, s.median_cycles, s.iterations "
                "FROM sessions s JOIN runs r ON r.id = s.run_id WHERE s.test = ?1 AND (?2 = '' OR r.hostname = ?2) "
                "ORDER BY r.timestamp_utc, r.id, s.session");
    s.bind(1, test).bind(2, host);
    std::vector<TrendPoint> out;
    while (s.step())
        out.push_back({s.integer(0), s.text(1), s.text(2), s.text(3), int(s.integer(4)), s.real(5),
                       uint64_t(s.integer(6))});
    return out;
}

std::optional<int64_t> Store::newest() {
    Stmt s(db_, "SELECT max(id) FROM runs");
    if (!s.step() || s.text(0).empty()) return std::nullopt;
    return s.integer(0);
}

std::optional<int64_t> Store::previous_like(int64_t id) {
    Stmt s(db_, "SELECT p.id FROM runs p JOIN runs r ON r.id = ?1 WHERE p.id < r.id AND p.tests = r.tests "
                "AND p.hostname = r.hostname AND p.source = r.source ORDER BY p.id DESC LIMIT 1");
    s.bind(1, id);
    if (!s.step()) return std::nullopt;
    return s.integer(0);
}

} // namespace eb::history
