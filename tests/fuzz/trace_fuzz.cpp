// libFuzzer target: any bytes given to the trace reader must be rejected
// with an exception or read; whatever reads must analyze and render in every
// mode without crashing, hanging or reading out of bounds.
//   built by tests/CMakeLists.txt with clang (target trace_fuzz); by hand:
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/trace_fuzz.cpp \
//     profile/{trace_file,exit_reasons,analyze,render,compare}.cpp stats/{summary,inference}.cpp -lfmt
#include <cstddef>
#include <cstdint>
#include <exception>

#include "profile/analyze.h"
#include "profile/trace_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    eb::profile::TraceFile t;
    try {
        t = eb::profile::read_trace_bytes({data, size});
    } catch (const std::exception&) {
        return 0;
    }
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
            (void)eb::profile::render_perf(r);
            (void)eb::profile::render_extended(r);
            (void)eb::profile::to_json(r).dump();
            (void)eb::profile::render_compare(eb::profile::compare(r, r), m);
        } catch (const std::exception&) {
        }
    }
    return 0;
}
