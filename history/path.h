// How the store's path reaches SQLite: always as a URI built here, so that
// nothing in the path itself is read as a URI parameter.
#pragma once
#include <string>

namespace eb::history {

// "file:" and the absolute path, percent-encoded.
std::string file_uri(const std::string& path);
// True when a read-only open should add immutable=1: a WAL store with no
// -wal file, which SQLite would otherwise create (see path.cpp).
bool reads_as_immutable(const std::string& path);

} // namespace eb::history
