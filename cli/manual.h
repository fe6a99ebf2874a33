// What --help says beyond the options, kept once: the exit statuses (from the
// enums that return them), the environment the code reads (getenv) and the
// files it uses. packaging/manpages.sh makes every man page's EXIT STATUS,
// ENVIRONMENT and FILES from this output, so page and program cannot drift.
#pragma once
#include <string>
#include <string_view>

namespace eb::cli {

// "Exit status:" and a row per code, for the command at `path` ("" the
// root, "bisect-step", ...). compare's is kCompareExitTable (its order of
// precedence), so this gives "" for it.
std::string exit_status_help(std::string_view path);
// "Environment:" and a row per variable exitbench reads.
std::string environment_help();
// "Files:" and a row per file or directory exitbench reads or writes by default.
std::string files_help();

} // namespace eb::cli
