// Saved runs, the use cases around the history store: a result read from a
// file or from a "run:N" / "label:L" reference, and a save that, when the
// store refuses it, keeps the result in a file and says how to store it.
// A bad reference or an unusable store is bad input (InputError).
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "history/store.h"
#include "suite/calibration.h"
#include "suite/result.h"
#include "sys/error.h"

namespace eb::lab {

// --db as given, or the default path.
std::string db_path(const std::string& db);

// Runs `f` on the store at `db` (the default path when empty). Every store
// problem is bad input: one line, exit 2. Another user's read
// is immutable (history/path.cpp), and a writer's checkpoint overlapping it
// reads as "malformed" for that instant: a read is tried again a few times
// (375 ms in all) before that is taken for the store's state. Commands
// print only after their queries, so a retry repeats no output.
template <class F>
auto with_store(const std::string& db, history::Store::Mode mode, F&& f) {
    for (int wait_ms = 25;; wait_ms *= 2) {
        try {
            history::Store st(db_path(db), mode);
            return f(st);
        } catch (const history::StoreError& e) {
            bool again = mode == history::Store::Mode::ReadOnly && wait_ms <= 200 &&
                         std::string_view(e.what()).find("malformed") != std::string_view::npos;
            if (!again) throw InputError(e.what());
            std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
        }
    }
}

// "run:N" or N, as 'history list' shows it.
int64_t parse_run_id(const std::string& s);
// Run `id`, or InputError with a did-you-mean.
history::RunRow require_run(history::Store& st, int64_t id);
// A saved result's JSON, read back.
suite::RunReport parse_saved(const std::string& text, int64_t id);

// Before a run: InputError unless a save to `db` could succeed.
void require_saveable(const std::string& db);
// Saves a finished run and returns its id. On failure it says why on stderr,
// keeps the result as a JSON file beside the store (else in TMPDIR), prints
// the command that imports it, and returns nullopt: the caller exits kNotSaved.
std::optional<int64_t> save_run(const std::string& db, const suite::RunReport& r, const std::string& label, const std::string& note);
// A calibration the store refused (`why`): said on stderr, kept with its runs
// as a JSON file beside the store (else in TMPDIR), and the `import
// calibration` command that stores it printed. False if no file could be kept.
bool keep_unsaved_calibration(const std::string& db, const std::string& why, const suite::Calibration& c,
                              const std::vector<suite::RunReport>& runs);

// compare's history references: "label:L" (every run under L) and "run:N".
bool is_history_ref(const std::string& s);
// A reference's runs as "run:N" names, oldest first; InputError with a
// did-you-mean for an unknown label or id.
std::vector<std::string> expand_ref(const std::string& db, const std::string& ref);
// compare --against last: {earlier run, newest run}.
std::vector<std::vector<std::string>> against_last(const std::string& db);
// One saved run's result, by its "run:N" name.
suite::RunReport load_saved_run(const std::string& db, const std::string& ref);
// A result file, or a saved run by its "run:N" name; InputError names the
// file and what is wrong with it.
suite::RunReport load_result(const std::string& path, const std::string& db);

} // namespace eb::lab
