// VM start, step by step, beside the bare-ioctl floor (floor.h).
#include <fmt/format.h>
#include <vector>

#include "bench/common.h"
#include "bench/floor.h"
#include "bench/sections.h"
#include "guest/abi.h"
#include "kvm/system.h"
#include "stats/summary.h"
#include "vmm/machine.h"
#include "vmm/start_trace.h"

namespace eb::bench {

namespace {

struct Startup {
    double open_ms, build_ms, first_exit_ms;
    vmm::StartTrace trace;
    double to_first_run_ms, first_run_to_exit_ms;  // start() called -> vCPU 0's first KVM_RUN -> first exit
};

Startup one_startup() {
    const auto& img = vmm::GuestImage::embedded();
    auto t0 = Clock::now();
    auto sys = kvm::System::open();
    auto t1 = Clock::now();
    Startup s{};
    s.trace.last = t1;
    vmm::MachineConfig cfg;
    cfg.batch = img.body("baseline")->batch;
    cfg.trace = &s.trace;
    vmm::Machine m(sys, img, cfg);
    Clock::time_point first;
    m.pio().add("ucall", abi::kUcallPort, 4, [&](const vmm::Access&) {
        first = Clock::now();
        return vmm::Action::Stop;
    });
    s.trace.mark(vmm::StartStep::Devices);
    auto t2 = Clock::now();
    m.start();
    while (!m.wait(std::chrono::milliseconds(100))) {
    }
    s.open_ms = ms_since(t0, t1);
    s.build_ms = ms_since(t0, t2);
    s.first_exit_ms = ms_since(t0, first);
    s.to_first_run_ms = ms_since(t2, s.trace.first_run);
    s.first_run_to_exit_ms = ms_since(s.trace.first_run, first);
    return s;
}

void row(const std::string& what, const std::vector<double>& v) {
    fmt::print("  {:<46} {:7.3f} {:7.3f} {:7.3f}\n", what, stats::median(v), stats::min(v), stats::max(v));
}

} // namespace

// 30 times each, exitbench's machine and the floor's bare ioctls interleaved
// so both see the same host.
void section_start() {
    std::vector<double> open, build, first, f_open, f_build, f_first, to_run, run_to_exit;
    std::vector<std::vector<double>> steps(size_t(vmm::StartStep::Count));
    std::string why;
    for (int i = 0; i < 30; ++i) {
        auto s = one_startup();
        open.push_back(s.open_ms);
        build.push_back(s.build_ms);
        first.push_back(s.first_exit_ms);
        for (size_t k = 0; k < steps.size(); ++k) steps[k].push_back(s.trace.ms[k]);
        to_run.push_back(s.to_first_run_ms);
        run_to_exit.push_back(s.first_run_to_exit_ms);
        if (auto f = floor_startup(why)) {
            f_open.push_back(f->open_ms);
            f_build.push_back(f->build_ms);
            f_first.push_back(f->first_exit_ms);
        }
    }
    fmt::print("VM start, 30 runs (median / min / max, ms from opening /dev/kvm):\n");
    row("exitbench: open /dev/kvm", open);
    row("  ... VM, memory, vCPU, boot state", build);
    row("  ... first guest exit (its ucall)", first);
    fmt::print("  exitbench's steps (each step's own time, ms):\n");
    for (size_t k = 0; k < steps.size(); ++k) row("    " + std::string(vmm::start_step_name(vmm::StartStep(k))), steps[k]);
    row("    start() called to vCPU 0's first KVM_RUN", to_run);
    row("    first KVM_RUN to the first exit", run_to_exit);
    if (f_first.empty()) {
        fmt::print("  floor not measurable here: {}\n", why);
        print_verdict("VM start", false, "no floor", "<= 1.5x the bare-ioctl floor");
        return;
    }
    row("floor: open /dev/kvm", f_open);
    row("  ... VM, one slot, vCPU, registers", f_build);
    row("  ... first guest exit (port I/O)", f_first);
    double ours = stats::median(first), floor = stats::median(f_first);
    print_ratio("VM start to the first exit, median", ours, floor, "ms");
    print_verdict("VM start", ours / floor <= 1.5, fmt::format("{:.2f}x the floor", ours / floor),
                  "<= 1.5x the bare-ioctl floor");
}

} // namespace eb::bench
