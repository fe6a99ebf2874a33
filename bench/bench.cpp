// exitbench_bench: how long exitbench takes, each figure beside its floor or
// peer (floor.h), with the ratio and a one-line verdict against the goals.
// `exitbench_bench [SECTION [ARGS]]`; no section runs them all; --help lists them.
#include <cstdio>
#include <fmt/format.h>
#include <string>
#include <string_view>
#include <vector>

#include "bench/common.h"
#include "bench/sections.h"

using namespace eb;

namespace {

struct Section {
    const char* name;
    const char* args;
    const char* what;
    void (*run)(const std::vector<std::string>& args);
};

// An EXITBENCH argument, else the exitbench built with this bench.
std::string exitbench_arg(const std::vector<std::string>& a) { return a.empty() ? EB_BINARY : a[0]; }

const Section kSections[] = {
    {"start", "", "VM start to the first guest exit, step by step, against bare ioctls (~10 s)",
     [](const auto&) { bench::section_start(); }},
    {"vmm", "[EXITBENCH]", "the VMM's cycles per userspace exit against the bare KVM_RUN loop (~30 s)",
     [](const auto& a) { bench::section_vmm(exitbench_arg(a)); }},
    {"suite", "[EXITBENCH]", "the default suite's wall time, 3 runs, and where it goes (~3 min)",
     [](const auto& a) { bench::section_suite(exitbench_arg(a)); }},
    {"kut", "[EXITBENCH [KUT_DIR]]", "kvm-unit-tests' vmexit group: the same 12 tests, against run_tests.sh (~1 min)",
     [](const auto& a) { bench::section_kut(exitbench_arg(a), a.size() > 1 ? a[1] : ""); }},
    {"ab", "[EXITBENCH]", "A/B resolution: time to resolve a configuration against itself (~8 min)",
     [](const auto& a) { bench::section_ab(exitbench_arg(a)); }},
    {"refuse", "[EXITBENCH]", "a refused argument (the option fuzz's unit) against --version; no /dev/kvm (~5 s)",
     [](const auto& a) { bench::section_refuse(exitbench_arg(a)); }},
    {"perf", "[EXITBENCH]", "perf.data of 1 M events: import and report against perf kvm stat report; no /dev/kvm (~20 s)",
     [](const auto& a) { bench::section_perf_data(exitbench_arg(a), EB_PERF_DATA_GEN, EB_PERF_FIXTURE); }},
};

void usage(std::FILE* to) {
    fmt::print(to, "usage: exitbench_bench [SECTION [ARGS]]   (no SECTION: every section, in this order)\n"
                   "sections (all but refuse and perf need /dev/kvm; EXITBENCH defaults to {}):\n", EB_BINARY);
    for (const auto& s : kSections) fmt::print(to, "  {:<6} {:<22} {}\n", s.name, s.args, s.what);
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
        usage(stdout);
        return 0;
    }
    if (bench::emulated())
        fmt::print("emulated: shape only, not hardware cost: inside kvm_amd nested under QEMU TCG; every figure and "
                   "its floor are this guest's\n");
    try {
        if (args.empty()) {
            for (const auto& s : kSections) s.run({});
            return 0;
        }
        for (const auto& s : kSections)
            if (args[0] == s.name) {
                s.run({args.begin() + 1, args.end()});
                return 0;
            }
    } catch (const std::exception& e) {  // no /dev/kvm, no permission: one line, no core
        std::fprintf(stderr, "exitbench_bench: %s\n", e.what());
        return 1;
    }
    fmt::print(stderr, "exitbench_bench: unknown section '{}' (see exitbench_bench --help)\n", args[0]);
    return 2;
}
