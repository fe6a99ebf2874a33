// exitbench_bench's sections, each printing its figures beside the floor or
// peer, their ratio and a one-line verdict against issue 42's goals.
#pragma once
#include <string>

namespace eb::bench {

// VM start to the first guest exit, against bare ioctls (goal <= 1.5x).
void section_start();
// The VMM's cycles per userspace exit of `exitbench`'s run, against the bare
// KVM_RUN loop (goal <= 1.2x or <= +100 cycles), with the layers between.
void section_vmm(const std::string& exitbench);
// The default suite's wall time (goal <= 20 s) and where it goes.
void section_suite(const std::string& exitbench);
// kvm-unit-tests' vmexit group: the same tests' wall time, against
// `run_tests.sh -g vmexit` in `kut_dir` when one is given (goal <= 0.05x).
void section_kut(const std::string& exitbench, const std::string& kut_dir);
// A/B resolution: the time until a configuration compared with itself is resolved.
void section_ab(const std::string& exitbench);
// A refused argument's wall time, against the binary's --version (goal <= 2x);
// needs no /dev/kvm.
void section_refuse(const std::string& exitbench);

// perf.data of 1 M kvm events made by `generator` from `fixture` (its
// perf.data.gz): exitbench's import and report against perf kvm stat
// report (goal >= 5x faster, <= 45 B/event); needs no /dev/kvm.
void section_perf_data(const std::string& exitbench, const std::string& generator, const std::string& fixture);

} // namespace eb::bench
