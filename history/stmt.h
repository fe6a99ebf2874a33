// The store's statement wrapper and its error: internal to history/*.cpp.
#pragma once
#include <cerrno>
#include <cstdint>
#include <fmt/format.h>
#include <sqlite3.h>
#include <string>

#include "history/store.h"

namespace eb::history::detail {

// SQLite's reason, except that a write failing for want of space is said so:
// SQLite reports ENOSPC from its journal or WAL as "disk I/O error".
inline std::string db_why(sqlite3* db, const char* msg = nullptr) {
    if (sqlite3_system_errno(db) == ENOSPC || (sqlite3_extended_errcode(db) & 0xff) == SQLITE_FULL)
        return "disk full (no space left on device)";
    return msg ? msg : sqlite3_errmsg(db);
}

// Every error after the store is open names it.
inline StoreError db_error(sqlite3* db) {
    return StoreError(fmt::format("history database {}: {}", sqlite3_db_filename(db, "main"), db_why(db)));
}

class Stmt {
public:
    Stmt(sqlite3* db, const char* sql) : db_(db) {
        if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK)
            throw db_error(db);
    }
    ~Stmt() { sqlite3_finalize(s_); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    Stmt& bind(int i, const std::string& v) { return check(sqlite3_bind_text(s_, i, v.c_str(), -1, SQLITE_TRANSIENT)); }
    Stmt& bind(int i, int64_t v) { return check(sqlite3_bind_int64(s_, i, v)); }
    Stmt& bind(int i, double v) { return check(sqlite3_bind_double(s_, i, v)); }
    Stmt& bind_null(int i) { return check(sqlite3_bind_null(s_, i)); }
    void reset() {
        sqlite3_reset(s_);
        sqlite3_clear_bindings(s_);
    }
    // True while there is a row.
    bool step() {
        int rc = sqlite3_step(s_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        throw db_error(db_);
    }
    std::string text(int c) {
        auto* p = sqlite3_column_text(s_, c);
        return p ? reinterpret_cast<const char*>(p) : "";
    }
    int64_t integer(int c) { return sqlite3_column_int64(s_, c); }
    double real(int c) { return sqlite3_column_double(s_, c); }

private:
    Stmt& check(int rc) {
        if (rc != SQLITE_OK) throw db_error(db_);
        return *this;
    }
    sqlite3* db_;
    sqlite3_stmt* s_ = nullptr;
};


} // namespace eb::history::detail
