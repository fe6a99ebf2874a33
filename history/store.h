// The result history: an embedded SQLite database of every saved run, with
// its provenance, its sessions' figures and the full result JSON.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "suite/calibration.h"
#include "suite/result.h"
#include "sys/error.h"

struct sqlite3;

namespace eb::history {

// A store that cannot be opened, read or written; the message is one line.
struct StoreError : HostError {
    using HostError::HostError;
};

// The newest schema this build writes; older stores are migrated on open.
inline constexpr int kStoreVersion = 3;

// $XDG_DATA_HOME/exitbench/history.db, else ~/.local/share/exitbench/history.db.
std::string default_path();

// --db is a path. SQLite would take "" and ":memory:" as a private
// in-memory store and "file:..." as a URI (mode=memory, nolock, immutable):
// a run "saved" there would be lost. Throws StoreError; ./NAME means a file.
void check_db_path(const std::string& path);

// Before a long run: a save to `path` could succeed (the store is absent
// and its directory can be made and written, or it is an exitbench store
// this build can write). Throws StoreError naming what is wrong.
void check_save_target(const std::string& path);

// Saves one run to the store at `path`, creating the store if need be. A new
// store is made beside `path` and moved into place with the run in it, so a
// failed first save (a full disk) leaves no empty store behind. Throws
// StoreError naming the path.
int64_t save_run(const std::string& path, const suite::RunReport& r, const std::string& label,
                 const std::string& note);

// Stores a calibration at `path`, creating the store (and its folders, which
// a failure removes again) if need be. Throws StoreError naming the path.
int64_t save_calibration(const std::string& path, const suite::Calibration& c);

struct RunRow {
    int64_t id = 0;
    std::string timestamp_utc, hostname, kernel_release, boot_id, tool_version, label, note;
    std::vector<std::string> tests;  // sorted
    std::string source;              // an imported run's tool, e.g. "kvm-unit-tests"; empty: exitbench's
    std::string backend;             // its KVM module, and "nested under QEMU TCG, emulated" for an emulated boot's
};

struct Filter {
    std::string label, test, since;  // empty: any; since compares ISO 8601 text
};

struct TrendPoint {
    int64_t run_id = 0;
    std::string timestamp_utc, hostname, label;
    int session = 0;
    double median_cycles = 0;
    uint64_t iterations = 0;
};

class Store {
public:
    // ReadWrite creates the file and its directory; Modify writes to an
    // existing store only; ReadOnly never writes, nor creates any file
    // (not even SQLite's -wal and -shm beside the store); Check is ReadOnly
    // that lets an empty or older store pass: a save could go there.
    enum class Mode { ReadWrite, Modify, ReadOnly, Check };
    // Throws StoreError for a missing, corrupt, foreign or newer store, and
    // for a path SQLite would take as something else (see check_db_path).
    Store(const std::string& path, Mode mode);
    ~Store();
    Store(const Store&) = delete;
    Store& operator=(const Store&) = delete;

    const std::string& path() const { return path_; }

    // One transaction: the run, its sessions, its environment. Returns the id.
    int64_t save(const suite::RunReport& r, const std::string& label, const std::string& note);
    std::vector<RunRow> list(const Filter& f);
    std::optional<RunRow> run(int64_t id);
    std::optional<std::string> result_json(int64_t id);
    std::vector<std::pair<std::string, std::string>> env(int64_t id);
    bool remove(int64_t id);

    std::vector<int64_t> runs_with_label(const std::string& label);  // oldest first
    std::vector<std::string> labels();
    std::vector<int64_t> ids();
    std::vector<TrendPoint> trend(const std::string& test, const std::string& host);
    std::optional<int64_t> newest();
    // The newest run before `id` with the same tests on the same host.
    std::optional<int64_t> previous_like(int64_t id);

    // One transaction: the calibration and every test of it. Returns its id.
    int64_t save_calibration(const suite::Calibration& c);
    // Every calibration made on `hostname` (any kernel or settings: the
    // caller says what differs), newest first, with all their tests.
    std::vector<suite::Calibration> calibrations(const std::string& hostname);

private:
    void migrate(Mode mode);
    void exec(const std::string& sql);
    sqlite3* db_ = nullptr;
    std::string path_;
};

} // namespace eb::history
