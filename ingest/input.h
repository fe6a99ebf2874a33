// The importers' room: other tools' files (kvm-unit-tests logs, `perf kvm
// stat report` text, perf.data) and exitbench's own kept files read into the
// layers' types, each checked as it is read. Nothing here knows the command
// line or the history: lab/ saves what these return.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace eb::ingest {

// The whole of an input file, refusing a missing, irregular or bigger than
// max_bytes one (`what` names what it should be) with a one-line InputError.
std::string read_input_file(const std::string& path, size_t max_bytes, std::string_view what);

} // namespace eb::ingest
