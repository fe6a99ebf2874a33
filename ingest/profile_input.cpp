#include "ingest/profile_input.h"

#include <algorithm>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ingest/perf_data.h"
#include "ingest/perf_kvm.h"
#include "profile/trace_file.h"
#include "sys/error.h"
#include "sys/fd.h"

namespace eb::ingest {

namespace {

// A trace holds NUL bytes from its magic on; a perf kvm stat report text none.
// A FIFO or device is refused here, before a read could wait on it for ever.
bool is_text(const std::string& path) {
    sys::Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (!fd.valid()) return false;  // the trace reader says why
    struct stat st {};
    if (::fstat(fd.get(), &st) == 0 && !S_ISREG(st.st_mode)) throw InputError(path + ": not a regular file");
    char buf[4096];
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    return n > 0 && std::find(buf, buf + n, '\0') == buf + n;
}

} // namespace

profile::Report read_profile(const std::string& path, const profile::Options& opt) {
    // The readers' errors are typed (a bad file InputError, a failing read HostError) and name the file.
    if (!is_text(path)) {
        if (is_perf_data(path)) return analyze_perf_data(path, opt);
        return profile::analyze(profile::read_trace(path), opt);
    }
    if (opt.vcpu) throw InputError(fmt::format("{}: --vcpu does not apply to a perf kvm stat table", path));
    std::string text;
    auto tables = read_perf_tables(path, text);
    for (auto& t : tables)
        if (t.mode == opt.mode) return std::move(t);
    throw InputError(fmt::format("{}: no {} table in it (see --event)", path, profile::mode_name(opt.mode)));
}

} // namespace eb::ingest
