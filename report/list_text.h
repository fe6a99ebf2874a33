// --export-text for the kvm list: at most 78 columns, as a mail is read; a
// Test System block (CPU, microcode, kernel, command-line mitigations, KVM
// module; for a compare the facts and module parameters that differ between
// the configurations), the exact command line, then one line per test (per
// configuration and test) with cycles, interval, change and verdict, like
// the tables in the seed threads.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "report/exporter.h"

namespace eb::report {

inline constexpr size_t kListColumns = 78;

std::string list_text(const suite::RunReport& r);
std::string list_text(const Comparison& c);

// `text` folded at spaces into lines of at most kListColumns, the first
// starting with `lead`, the others indented as far (a word longer than a line
// is cut, never left overlong).
std::vector<std::string> fold(const std::string& lead, const std::string& text);

// The Test System block of one host's facts (env::capture()'s pairs); with
// several sides, the facts that differ are given per side.
std::vector<std::string> system_block(const std::vector<std::vector<std::pair<std::string, std::string>>>& sides,
                                      const std::vector<std::string>& names);

} // namespace eb::report
