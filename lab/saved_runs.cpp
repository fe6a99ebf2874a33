#include "lab/saved_runs.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "lab/suggest.h"
#include "report/sanitize.h"
#include "result/calibration_json.h"
#include "result/json.h"
#include "sys/file.h"
#include "sys/io.h"

namespace eb::lab {

using history::Store;

namespace {

[[noreturn]] void unknown_id(Store& st, int64_t id) {
    std::vector<std::string> ids;
    for (auto i : st.ids()) ids.push_back(std::to_string(i));
    auto s = suggest(std::to_string(id), ids);
    throw InputError(fmt::format("no run {} in {}{}", id, st.path(), s ? fmt::format(" (did you mean {}?)", *s) : ""));
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

int64_t parse_run_id(const std::string& s) {
    std::string digits = s.starts_with("run:") ? s.substr(4) : s;
    if (digits.empty() || digits.size() > 18 || !std::all_of(digits.begin(), digits.end(), ::isdigit))
        throw InputError(fmt::format("'{}' is not a run id (a number, as 'history list' shows)", s));
    return std::stoll(digits);
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

std::string db_path(const std::string& db) {
    if (!db.empty()) return db;
    try {
        return history::default_path();
    } catch (const history::StoreError& e) {
        throw InputError(e.what());
    }
}

void require_saveable(const std::string& db) {
    try {
        history::check_save_target(db_path(db));
    } catch (const history::StoreError& e) {
        throw InputError(e.what());
    }
}

std::optional<int64_t> save_run(const std::string& db, const suite::RunReport& r, const std::string& label,
                                const std::string& note) {
    std::string path = db_path(db);
    try {
        return history::save_run(path, r, label, note);
    } catch (const std::exception& e) {
        fmt::print(stderr, "exitbench: error: not saved to the history: {}\n", report::printable(e.what()));
    }
    keep_unsaved(path, r, label, note);
    return std::nullopt;
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

suite::RunReport load_result(const std::string& path, const std::string& db) {
    if (is_history_ref(path)) return load_saved_run(db, path);
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))  // it opens, and its first read throws libstdc++'s text
        throw InputError(fmt::format("{}: a directory, not a result file", path));
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
            out.push_back("run:" + std::to_string(require_run(st, parse_run_id(ref)).id));
            return out;
        }
        std::string label = ref.substr(6);
        for (auto id : st.runs_with_label(label)) out.push_back("run:" + std::to_string(id));
        if (out.empty()) {
            auto s = suggest(label, st.labels());
            throw InputError(fmt::format("no run is labelled '{}' in {}{}", label, st.path(),
                                         s ? fmt::format(" (did you mean label:{}?)", *s) : ""));
        }
        return out;
    });
}

std::vector<std::vector<std::string>> against_last(const std::string& db) {
    return with_store(db, Store::Mode::ReadOnly, [&](Store& st) {
        auto last = st.newest();
        if (!last) throw InputError(fmt::format("--against last: no saved run in {}", st.path()));
        auto prev = st.previous_like(*last);
        if (!prev)
            throw InputError(fmt::format("--against last: no run before run {} has the same tests on the same host", *last));
        return std::vector<std::vector<std::string>>{{"run:" + std::to_string(*prev)}, {"run:" + std::to_string(*last)}};
    });
}

suite::RunReport load_saved_run(const std::string& db, const std::string& ref) {
    int64_t id = parse_run_id(ref);
    return with_store(db, Store::Mode::ReadOnly, [&](Store& st) {
        require_run(st, id);
        return parse_saved(*st.result_json(id), id);
    });
}

} // namespace eb::lab
