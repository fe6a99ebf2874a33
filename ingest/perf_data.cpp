#include "ingest/perf_data.h"

#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <vector>

#include "ingest/input.h"
#include "profile/perf_script.h"
#include "profile/trace_file.h"
#include "sys/error.h"
#include "sys/process.h"

namespace eb::ingest {

namespace {

// perf script's output above this is not held in memory.
constexpr size_t kMaxScriptBytes = size_t(2) << 30;
// A hung perf is ended, and named; a large file takes minutes, not hours.
constexpr double kPerfScriptTimeoutS = 3600;

// A file name as a command-line argument: "-" (or "-x") would be read as
// stdin or an option, "./-" is the file.
std::string path_arg(const std::string& file) { return file.starts_with("-") ? "./" + file : file; }

// The first line perf said on stderr, for the one-line error.
std::string first_line(const std::string& path) {
    std::ifstream f(path);
    std::string line;
    std::getline(f, line);
    return line.substr(0, 200);
}

// `perf script -i FILE ARGS...`'s stdout.
std::string perf_script(const std::string& file) {
    sys::ScratchDir dir("exitbench-perf-script");
    sys::Spawn s{{"perf", "script", "-i", path_arg(file)}, "/dev/null", dir.file("out"), dir.file("err")};
    for (const char* a : profile::kPerfScriptArgs) s.argv.emplace_back(a);
    auto end = sys::run_process(s, kPerfScriptTimeoutS, nullptr);
    if (end.timed_out) throw HostError(fmt::format("{}: perf script did not end in {} s", file, kPerfScriptTimeoutS));
    if (!end.ok()) {
        std::string why = first_line(dir.file("err"));
        throw InputError(fmt::format("{}: perf script failed (exit {}{}): not a perf.data it can read", file,
                                     end.code >= 0 ? end.code : 128 + end.signal, why.empty() ? "" : ": " + why));
    }
    std::error_code ec;
    if (std::filesystem::file_size(dir.file("out"), ec) > kMaxScriptBytes && !ec)
        throw InputError(fmt::format("{}: perf script printed over {} GiB", file, kMaxScriptBytes >> 30));
    return read_input_file(dir.file("out"), kMaxScriptBytes, "perf script output");
}

} // namespace

void check_perf_data(const std::string& perf_data) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(perf_data, ec))
        throw InputError(fmt::format("cannot read {}: no such regular file", perf_data));
    char magic[8] = {};
    std::ifstream(perf_data, std::ios::binary).read(magic, 8);
    if (std::memcmp(magic, "PERFILE2", 8) != 0)
        throw InputError(fmt::format("{}: not a perf.data file (no PERFILE2 magic)", perf_data));
    if (!sys::find_program("perf")) throw HostError("perf is not installed: apt-get install linux-perf");
}

PerfDataImport import_perf_data(const std::string& perf_data, const std::string& out) {
    check_perf_data(perf_data);
    profile::PerfScript s;
    try {
        s = profile::parse_perf_script(perf_script(perf_data));
    } catch (const profile::PerfScriptError& e) {
        throw InputError(fmt::format("{}: perf script output: {}", perf_data, e.what()));
    }
    auto& h = s.trace.header;
    h.cpu_model = "unknown (imported from perf.data)";
    h.backend = h.isa == "svm" ? "kvm_amd" : h.isa == "vmx" ? "kvm_intel" : "";
    profile::TraceWriter w(out, h);
    for (const auto& e : s.trace.events) w.add(e);
    w.finish();
    return {s.trace.events.size(), h.isa, s.skipped};
}

} // namespace eb::ingest
