// Result files are written atomically: a temp file in the same directory,
// fsync'ed, then renamed over the target.
#pragma once
#include <string>

namespace eb::report {

// Throws std::runtime_error with a one-line reason.
void write_file_atomic(const std::string& path, const std::string& content);
// Fails early, before a long run, if `path` cannot be written.
void check_writable(const std::string& path);

} // namespace eb::report
