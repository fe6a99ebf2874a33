// libFuzzer target: any bytes given to the trace reader must be rejected
// with an exception or read; whatever reads must analyze and render in every
// mode without crashing, hanging or reading out of bounds.
//   built by tests/CMakeLists.txt with clang (target trace_fuzz); by hand:
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/trace_fuzz.cpp \
//     profile/{trace_file,exit_reasons,analyze,render,compare}.cpp stats/{summary,inference}.cpp -lfmt
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

#include "profile/analyze.h"
#include "profile/trace_file.h"
#include "report/profile_text.h"

namespace {
// The fd-based reader (pread into the event array) on the same bytes, through
// a memfd: it must accept and reject exactly what the in-memory reader does.
bool read_through_fd(const uint8_t* data, size_t size, size_t* events) {
    static const int fd = memfd_create("trace_fuzz", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != ssize_t(size)) __builtin_trap();
    try {
        *events = eb::profile::read_trace("/proc/self/fd/" + std::to_string(fd)).events.size();
        return true;
    } catch (const std::exception&) {
        return false;
    }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    eb::profile::TraceFile t;
    size_t fd_events = 0;
    bool fd_ok = read_through_fd(data, size, &fd_events);
    try {
        t = eb::profile::read_trace_bytes({data, size});
    } catch (const std::exception&) {
        if (fd_ok) __builtin_trap();  // the two readers disagree
        return 0;
    }
    if (!fd_ok || fd_events != t.events.size()) __builtin_trap();
    using eb::profile::Mode;
    static const char* const kSorts[] = {"sample", "time", "ev_name", "mean_t"};
    int i = 0;
    for (Mode m : {Mode::VmExit, Mode::Mmio, Mode::Ioport, Mode::Msr}) {
        eb::profile::Options o;
        o.mode = m;
        o.sort = kSorts[i++];
        if (m == Mode::Msr && !t.events.empty()) o.vcpu = t.events.front().vcpu;
        try {
            auto r = eb::profile::analyze(t, o);
            (void)eb::report::render_perf(r);
            (void)eb::report::render_extended(r);
            (void)eb::profile::to_json(r).dump();
            (void)eb::report::render_profile_compare(eb::profile::compare(r, r), m);
        } catch (const std::exception&) {
        }
    }
    return 0;
}
