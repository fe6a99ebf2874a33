// `perf kvm stat report` text, as printed or pasted into a mail: its
// VM-EXIT, IO Port, MSR and MMIO tables (profile/perf_text.h reads them).
#pragma once
#include <string>
#include <vector>

#include "profile/analyze.h"

namespace eb::ingest {

// The file's tables; `text` gets its bytes (for their sha256). Bad input is
// an InputError naming the file.
std::vector<profile::Report> read_perf_tables(const std::string& path, std::string& text);

} // namespace eb::ingest
