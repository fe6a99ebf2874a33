#include "history/path.h"

#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

#include "history/store.h"

namespace eb::history {

namespace fs = std::filesystem;

// A URI SQLite reads as exactly this file: the whole path percent-encoded,
// so nothing in it is taken as a query parameter.
std::string file_uri(const std::string& path) {
    std::string abs = fs::absolute(path).lexically_normal().string(), out = "file:";
    for (unsigned char c : abs) {
        if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
        else out += fmt::format("%{:02X}", c);
    }
    return out;
}

// Reading a WAL store makes SQLite create -wal and -shm files beside it,
// owned by the reader: another user's `history list` would leave files the
// owner cannot write, and a read-only directory would refuse the read. With
// no -wal file there is nothing beyond the main file to read, so a read-only
// command then opens it immutable, creating nothing. A writer that starts
// meanwhile appends to its own -wal; only its checkpoint (at 1000 pages, or
// when it closes) rewrites the main file, and a read overlapping that can
// fail as "malformed": an error, never a change to the store.
bool reads_as_immutable(const std::string& path) {
    std::error_code ec;
    if (fs::exists(path + "-wal", ec)) return false;
    std::ifstream f(path, std::ios::binary);
    char head[20] = {};
    f.read(head, sizeof head);
    return f.gcount() == sizeof head && head[18] == 2 && head[19] == 2;  // WAL read and write versions
}

void check_db_path(const std::string& path) {
    if (path.empty() || path == ":memory:" || path.starts_with("file:"))
        throw StoreError(fmt::format("--db {}: SQLite takes this as {}, not a file; --db names a file (./{} for "
                                     "one of that name)",
                                     path.empty() ? "''" : path,
                                     path.starts_with("file:") ? "a URI" : "a temporary in-memory database", path));
}

} // namespace eb::history
