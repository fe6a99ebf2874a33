// Building blocks of the KTAP exporter, exposed for its tests and for the
// command line's "nothing could run" output.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace eb::report {

// A result line's description: one line, control bytes as \xNN, and '#' as
// \x23 (it would start a directive).
std::string ktap_description(std::string_view name);
// "# " lines, one per line of `text` (empty lines dropped), control bytes as \xNN.
std::vector<std::string> ktap_diagnostics(std::string_view text);
// A whole KTAP document that ran nothing: version, "1..0 # SKIP reason".
std::string ktap_skip_all(std::string_view reason);

} // namespace eb::report
