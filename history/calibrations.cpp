// The calibrations table (schema version 3): written by `exitbench
// calibrate`, read by compare and by later calibrations.
#include <cmath>
#include <nlohmann/json.hpp>

#include "history/stmt.h"
#include "history/store.h"

namespace eb::history {

using detail::Stmt;
using nlohmann::json;

namespace {

// A level's variance and df as stored: NaN never reaches SQLite (it would read back as NULL, then 0).
double finite(double x) { return std::isfinite(x) ? x : 0; }

void save_test(Stmt& s, int64_t id, const suite::TestCalibration& t) {
    const auto& l = t.levels;
    s.reset();
    s.bind(1, id).bind(2, t.test);
    int i = 3;
    for (const stats::Component* c : {&l.repeat, &l.session, &l.run, &l.run_mean, &l.session_median}) {
        s.bind(i++, finite(c->var));
        s.bind(i++, finite(c->df));
    }
    // One bind a statement: chained binds with i++ read as unsequenced (they are
    // not, since C++17, but a reader should not have to know that).
    for (double v : {finite(l.inv_sessions), finite(l.repeats)}) s.bind(i++, v);
    for (int64_t v : {int64_t(l.runs), int64_t(l.sessions)}) s.bind(i++, v);
    for (double v : {finite(t.costs.run), finite(t.costs.session), finite(t.costs.repeat)}) s.bind(i++, v);
    s.bind(i, json(t.session_logs).dump());
    s.step();
}

suite::TestCalibration load_test(Stmt& s) {
    suite::TestCalibration t;
    t.test = s.text(0);
    auto& l = t.levels;
    int i = 1;
    for (stats::Component* c : {&l.repeat, &l.session, &l.run, &l.run_mean, &l.session_median}) {
        c->var = s.real(i++);
        c->df = s.real(i++);
    }
    l.inv_sessions = s.real(i++);
    l.repeats = s.real(i++);
    l.runs = size_t(s.integer(i++));
    l.sessions = size_t(s.integer(i++));
    t.costs = {s.real(i), s.real(i + 1), s.real(i + 2)};
    auto logs = json::parse(s.text(i + 3), nullptr, false);
    if (logs.is_array())
        for (const auto& run : logs) {
            auto& out = t.session_logs.emplace_back();
            if (run.is_array())
                for (const auto& x : run)
                    if (x.is_number()) out.push_back(x.get<double>());
        }
    return t;
}

} // namespace

int64_t Store::save_calibration(const suite::Calibration& c) {
    exec("BEGIN IMMEDIATE");
    try {
        Stmt cal(db_, "INSERT INTO calibrations(timestamp_utc, hostname, kernel_release, backend, cpu_model, boot_id, "
                      "tool_version, settings, runs, sessions, repeats) VALUES(?,?,?,?,?,?,?,?,?,?,?)");
        const auto& id = c.identity;
        cal.bind(1, c.timestamp_utc).bind(2, id.hostname).bind(3, id.kernel_release).bind(4, id.backend);
        cal.bind(5, id.cpu_model).bind(6, c.boot_id).bind(7, c.tool_version).bind(8, id.settings);
        cal.bind(9, int64_t(c.runs)).bind(10, int64_t(c.sessions)).bind(11, int64_t(c.repeats));
        cal.step();
        int64_t row = sqlite3_last_insert_rowid(db_);
        Stmt t(db_, "INSERT INTO calibration_tests VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
        for (const auto& test : c.tests) save_test(t, row, test);
        exec("COMMIT");
        return row;
    } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

std::vector<suite::Calibration> Store::calibrations(const std::string& hostname) {
    Stmt s(db_, "SELECT id, timestamp_utc, hostname, kernel_release, backend, cpu_model, boot_id, tool_version, "
                "settings, runs, sessions, repeats FROM calibrations WHERE hostname = ? ORDER BY id DESC");
    s.bind(1, hostname);
    std::vector<suite::Calibration> out;
    while (s.step()) {
        suite::Calibration c;
        c.id = s.integer(0);
        c.timestamp_utc = s.text(1);
        c.identity = {s.text(2), s.text(3), s.text(4), s.text(5), s.text(8)};
        c.boot_id = s.text(6);
        c.tool_version = s.text(7);
        c.runs = size_t(s.integer(9));
        c.sessions = size_t(s.integer(10));
        c.repeats = size_t(s.integer(11));
        out.push_back(std::move(c));
    }
    Stmt t(db_, "SELECT test, repeat_var, repeat_df, session_var, session_df, run_var, run_df, run_mean_var, "
                "run_mean_df, session_median_var, session_median_df, inv_sessions, mean_repeats, used_runs, "
                "used_sessions, run_cost_s, session_cost_s, repeat_cost_s, session_logs_json "
                "FROM calibration_tests WHERE calibration_id = ? ORDER BY rowid");
    for (auto& c : out) {
        t.reset();
        t.bind(1, c.id);
        while (t.step()) c.tests.push_back(load_test(t));
    }
    return out;
}

} // namespace eb::history
