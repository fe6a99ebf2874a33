#include "ingest/perf_kvm.h"

#include <fmt/format.h>

#include "ingest/input.h"
#include "profile/perf_text.h"

namespace eb::ingest {

std::vector<profile::Report> read_perf_tables(const std::string& path, std::string& text) {
    text = read_input_file(path, profile::kPerfTextMaxBytes, "perf kvm stat report");
    try {
        return profile::parse_perf_text(text, path);
    } catch (const profile::PerfTextError& e) {
        throw InputError(fmt::format("{}: {}", path, e.what()));
    }
}

} // namespace eb::ingest
