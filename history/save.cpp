// Saving a run: checked before the run, and a first save that makes no
// half-made store.
#include "history/store.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <functional>
#include <vector>

#include "sys/file.h"

namespace eb::history {

namespace fs = std::filesystem;

namespace {

// The folders a save makes for a new store, removed again (if still empty)
// when the save fails: a mistyped --db leaves nothing behind.
class MadeParents {
public:
    explicit MadeParents(const std::string& path) {
        fs::path dir = fs::path(path).parent_path();
        std::error_code ec;
        for (fs::path d = dir; !d.empty() && !fs::exists(d, ec) && d != d.parent_path(); d = d.parent_path())
            made_.push_back(d);
        if (made_.empty()) return;
        fs::create_directories(dir, ec);
        if (ec) {
            undo();
            throw StoreError(fmt::format("history database {}: cannot create {}: {}", path, dir.string(), ec.message()));
        }
    }
    ~MadeParents() { undo(); }
    void keep() { made_.clear(); }

private:
    void undo() noexcept {
        for (const auto& d : made_) ::rmdir(d.c_str());  // deepest first; a folder someone filled stays
        made_.clear();
    }
    std::vector<fs::path> made_;
};

void remove_store_files(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) ::unlink((path + suffix).c_str());
}

// The first save: a store of its own beside `path`, linked into place with
// the run in it. 0 when another process made `path` meanwhile.
int64_t save_new(const std::string& path, const std::function<int64_t(Store&)>& save) {
    fs::path p = fs::absolute(path);  // absolute, as SQLite names it in its errors
    std::string temp = (p.parent_path() / ("." + p.filename().string() + ".new-XXXXXX")).string();
    sys::Fd fd(::mkstemp(temp.data()));
    if (!fd.valid()) throw StoreError(fmt::format("history database {}: cannot create it: {}", path, std::strerror(errno)));
    // 0600 like a trace: a run's environment names the host, its kernel and
    // its command lines. SQLite gives the -wal and -shm files the same mode.
    ::fchmod(fd.get(), 0600);
    fd.reset();
    try {
        int64_t id;
        {
            Store st(temp, Store::Mode::ReadWrite);
            id = save(st);
        }  // closed: its WAL is checkpointed into the file and removed
        if (::link(temp.c_str(), path.c_str()) < 0) {
            int e = errno;
            remove_store_files(temp);
            if (e == EEXIST) return 0;
            throw StoreError(fmt::format("history database {}: cannot create it: {}", path, std::strerror(e)));
        }
        remove_store_files(temp);
        if (int e = sys::fsync_parent_dir(path))
            throw StoreError(fmt::format("history database {}: fsync its directory: {}", path, std::strerror(e)));
        return id;
    } catch (const StoreError& e) {
        remove_store_files(temp);
        std::string why = e.what();
        size_t at = why.find(temp);  // name the store the user named, not the temporary one
        if (at != std::string::npos) why.replace(at, temp.size(), path);
        throw StoreError(why);
    }
}

} // namespace

void check_save_target(const std::string& path) {
    check_db_path(path);
    std::error_code ec;
    if (fs::exists(path, ec)) {
        // Writable first: SQLite says a read-only folder's store is "unable to open database file".
        if (::access(path.c_str(), W_OK) < 0)
            throw StoreError(fmt::format("history database {}: {}", path, std::strerror(errno)));
        Store st(path, Store::Mode::Check);  // not SQLite, not ours, too new: refused here
        return;
    }
    // The save would make the missing folders: made to try a file in them,
    // then removed again, so a check (or a command that fails later) leaves none.
    MadeParents probe(path);
    try {
        sys::check_writable(path);
    } catch (const std::runtime_error& e) {
        std::string why = e.what();  // "cannot write PATH: reason"
        if (why.starts_with("cannot write ")) why.erase(0, 13);
        throw StoreError("history database " + why);
    }
}

int64_t save_run(const std::string& path, const suite::RunReport& r, const std::string& label,
                 const std::string& note) {
    check_db_path(path);
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        MadeParents made(path);
        int64_t id = save_new(path, [&](Store& st) { return st.save(r, label, note); });
        made.keep();  // saved, or another process made the store there meanwhile
        if (id) return id;
    }
    Store st(path, Store::Mode::Modify);
    return st.save(r, label, note);
}

int64_t save_calibration(const std::string& path, const suite::Calibration& c) {
    check_db_path(path);
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        MadeParents made(path);
        int64_t id = save_new(path, [&](Store& st) { return st.save_calibration(c); });
        made.keep();
        if (id) return id;
    }
    return Store(path, Store::Mode::Modify).save_calibration(c);
}

} // namespace eb::history
