// Prints how long exitbench takes: VMM start-up (open /dev/kvm to the guest's
// first exit), the VMM's own cycles per userspace exit, and the wall time of
// a whole `exitbench run`, each beside the floor where one exists (floor.h).
// `exitbench_bench vmm [EXITBENCH]` prints only the VMM's cycles per exit (of
// another exitbench binary, if given), `exitbench_bench start` only the VM start.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <string_view>
#include <vector>

#include "bench/floor.h"
#include "guest/abi.h"
#include "kvm/system.h"
#include "stats/summary.h"
#include "vmm/devices.h"
#include "vmm/machine.h"
#include "vmm/start_trace.h"

using namespace eb;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0, Clock::time_point t1) {
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

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

// Runs an interleaved `exitbench compare` of a configuration against itself,
// under the sound method (the round is the unit), until the 95% interval of
// the ratio is within +-target, and reports the time and rounds it took.
void ab_resolution(const char* test, double target_pct, double budget_s) {
    char dir[] = "/tmp/exitbench_bench_XXXXXX";
    if (!mkdtemp(dir)) return;
    std::string json = std::string(dir) + "/ab.json";
    auto t0 = Clock::now();
    std::string cmd = fmt::format("{} compare {} --a '' --b '' --time-budget {}s --precision {} --json {} "
                                  ">/dev/null 2>&1", EB_BINARY, test, budget_s, target_pct, json);
    int st = std::system(cmd.c_str());
    double secs = ms_since(t0, Clock::now()) / 1e3;
    double half = -1, detectable = -1;
    size_t rounds = 0;
    try {
        std::ifstream f(json);
        auto doc = nlohmann::json::parse(f);
        for (const auto& t : doc["tests"])
            if (t["test"] == test) {
                const auto& e = t["vs_first"][0];
                double r = e["ratio"].get<double>();
                half = (e["ratio_ci"][1].get<double>() - e["ratio_ci"][0].get<double>()) / 2 / r * 100;
                detectable = e["detectable_relative"].get<double>() * 100;
                rounds = e["units"][0].get<size_t>();
            }
    } catch (const std::exception&) {
    }
    std::filesystem::remove_all(dir);
    if (st != 0 || half < 0)
        fmt::print("  {:<16} +-{}%: compare failed (status {})\n", test, target_pct, st);
    else
        fmt::print("  {:<16} +-{}%: {} in {:6.1f} s ({} rounds; CI half-width {:.2f}%, detectable with 80% power "
                   "{:.2f}%)\n", test, target_pct, half <= target_pct ? "resolved" : "NOT resolved", secs, rounds,
                   half, detectable);
}

// The VMM's handling of one userspace exit of each kind, from the run's own
// host-side timestamps (KVM_RUN return -> next KVM_RUN) of `exitbench`;
// returns the p50 per kind ("pio", "mmio", "msr") for the comparison with the
// floor. 10 batches of 2048 exits each: the floor's 20000 exits, so both
// medians rest on as many samples.
std::map<std::string, double> vmm_handling(const std::string& exitbench) {
    std::map<std::string, double> p50;
    char dir[] = "/tmp/exitbench_bench_XXXXXX";
    if (!mkdtemp(dir)) return p50;
    std::string json = std::string(dir) + "/vmm.json";
    const std::pair<const char*, const char*> kinds[] = {
        {"pio", "inl_from_qemu"}, {"mmio", "mmio_from_user"}, {"msr", "rdmsr_to_user"}};
    std::string cmd = fmt::format("{} run inl_from_qemu mmio_from_user rdmsr_to_user --sessions 1 -r 10 -n 2048 "
                                  "--no-save --no-trace-verify --json {} >/dev/null 2>&1", exitbench, json);
    int st = std::system(cmd.c_str());
    fmt::print("VMM handling per userspace exit, cycles (host TSC, KVM_RUN return -> next KVM_RUN; 10 batches of "
               "2048), {}:\n", exitbench);
    try {
        std::ifstream f(json);
        auto doc = nlohmann::json::parse(f);
        for (const auto& [kind, test] : kinds)
            for (const auto& r : doc["results"]) {
                if (r["name"] != test) continue;
                const auto& s = r["userspace_split"];
                if (s.is_null()) {
                    fmt::print("  {:<5} {:<16} no timed exits ({})\n", kind, test, r["status"].get<std::string>());
                    continue;
                }
                p50[kind] = s["vmm_p50_cycles"].get<double>();
                fmt::print("  {:<5} {:<16} p50 {:6.0f}  p99 {:6.0f}  mean {:6.0f}  (handler {:5.0f})  of {:8.0f} "
                           "per exit, n={}\n", kind, test, s["vmm_p50_cycles"].get<double>(),
                           s["vmm_p99_cycles"].get<double>(), s["vmm_mean_cycles"].get<double>(),
                           s["handler_mean_cycles"].get<double>(), s["exit_cycles"].get<double>(),
                           s["exits"].get<uint64_t>());
            }
    } catch (const std::exception& e) {
        fmt::print("  run failed (status {}): {}\n", st, e.what());
    }
    std::filesystem::remove_all(dir);
    return p50;
}

// Beside the floor, in this run: the least the kernel allows per exit.
void vmm_against_floor(const std::map<std::string, double>& ours) {
    fmt::print("VMM time per userspace exit against the floor (bare KVM_RUN loop, no dispatch), p50 cycles:\n");
    for (auto kind : {bench::FloorExit::Pio, bench::FloorExit::Mmio, bench::FloorExit::Msr}) {
        std::string why;
        auto loop = bench::floor_exit_loop(kind, 20000, why);
        const char* name = bench::floor_exit_name(kind);
        if (!loop) {
            fmt::print("  {:<5} floor not measurable here: {}\n", name, why);
            continue;
        }
        double floor = stats::median(loop->vmm_cycles), trip = stats::median(loop->round_trip_cycles);
        auto it = ours.find(name);
        if (it == ours.end()) {
            fmt::print("  {:<5} floor {:6.0f} (round trip {:.0f}); exitbench's figure is missing above\n", name, floor,
                       trip);
            continue;
        }
        fmt::print("  {:<5} exitbench {:6.0f}  floor {:6.0f}  ratio {:5.2f}x  ({:+.0f} cycles; the floor's round "
                   "trip {:.0f})\n", name, it->second, floor, it->second / floor, it->second - floor, trip);
    }
}

// One `exitbench run ARGS`: its wall time as seen from here (s), and the
// run's own account of it by phase ("wall_time" in its JSON; null if absent).
struct SuiteRun {
    double wall_s = 0;
    int status = 0;  // std::system's, 0 when the run succeeded
    nlohmann::json split;
};

SuiteRun run_suite(const char* args) {
    SuiteRun out;
    char dir[] = "/tmp/exitbench_bench_XXXXXX";
    if (!mkdtemp(dir)) return out;
    std::string json = std::string(dir) + "/run.json";
    auto t0 = Clock::now();
    // Not saved: a benchmark must not fill the user's history with its runs.
    std::string cmd = fmt::format("{} run {} --no-save --json {} >/dev/null 2>&1", EB_BINARY, args, json);
    out.status = std::system(cmd.c_str());
    out.wall_s = ms_since(t0, Clock::now()) / 1e3;
    try {
        std::ifstream f(json);
        out.split = nlohmann::json::parse(f).at("wall_time");
    } catch (const std::exception&) {
        // no account: the run failed before writing its result
    }
    std::filesystem::remove_all(dir);
    return out;
}

// The runs' phases summed, each as a share of their summed total.
void print_split(const std::vector<SuiteRun>& runs) {
    std::map<std::string, double> sum;
    for (const auto& r : runs)
        if (r.split.is_object())
            for (const auto& [k, v] : r.split.items()) sum[k] += v.get<double>();
    if (sum["total_s"] <= 0) return;
    std::string line;
    for (const char* k : {"measured_s", "warmup_s", "vm_start_s", "teardown_s", "trace_verify_s", "setup_s",
                          "watchdog_s", "other_s"})
        line += fmt::format(" {} {:.0f}%", std::string_view(k, std::strlen(k) - 2), 100 * sum[k] / sum["total_s"]);
    fmt::print("    its own account ({:.2f} s of the runs' {:.2f} s):{}\n", sum["total_s"],
               [&] { double w = 0; for (const auto& r : runs) w += r.wall_s; return w; }(), line);
}

// VM start to the first guest exit, 30 times each, exitbench's machine and
// the floor's bare ioctls interleaved so both see the same host.
void startup_against_floor() {
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
        if (auto f = bench::floor_startup(why)) {
            f_open.push_back(f->open_ms);
            f_build.push_back(f->build_ms);
            f_first.push_back(f->first_exit_ms);
        }
    }
    fmt::print("VM start, 30 runs (median / min / max, ms from opening /dev/kvm):\n");
    auto row = [](const std::string& what, const std::vector<double>& v) {
        fmt::print("  {:<46} {:7.3f} {:7.3f} {:7.3f}\n", what, stats::median(v), stats::min(v), stats::max(v));
    };
    row("exitbench: open /dev/kvm", open);
    row("  ... VM, memory, vCPU, boot state", build);
    row("  ... first guest exit (its ucall)", first);
    fmt::print("  exitbench's steps (each step's own time, ms):\n");
    for (size_t k = 0; k < steps.size(); ++k) row("    " + std::string(vmm::start_step_name(vmm::StartStep(k))), steps[k]);
    row("    start() called to vCPU 0's first KVM_RUN", to_run);
    row("    first KVM_RUN to the first exit", run_to_exit);
    if (f_first.empty()) {
        fmt::print("  floor not measurable here: {}\n", why);
        return;
    }
    row("floor: open /dev/kvm", f_open);
    row("  ... VM, one slot, vCPU, registers", f_build);
    row("  ... first guest exit (port I/O)", f_first);
    double ours = stats::median(first), floor = stats::median(f_first);
    fmt::print("  ratio to the floor {:.2f}x ({:+.3f} ms)\n", ours / floor, ours - floor);
}

void bench_all(std::string_view only, const char* other) {
    // `vmm EXITBENCH` measures another build of exitbench against this run's floor.
    if (only == "vmm" || only == "start") {
        if (only == "vmm")
            vmm_against_floor(vmm_handling(other));
        else
            startup_against_floor();
        return;
    }
    startup_against_floor();
    vmm_against_floor(vmm_handling(EB_BINARY));
    fmt::print("exitbench run, wall time (s), 3 runs each:\n");
    for (const char* args : {"", "--iterations 64 --repeats 3"}) {
        std::vector<double> w;
        std::vector<SuiteRun> runs;
        for (int i = 0; i < 3; ++i) {
            runs.push_back(run_suite(args));
            w.push_back(runs.back().wall_s);
        }
        auto failed = std::count_if(runs.begin(), runs.end(), [](const SuiteRun& r) { return r.status != 0; });
        if (failed) {
            fmt::print("  run {:<28} {} of {} runs failed: no figure\n", *args ? args : "(defaults)", failed, runs.size());
            continue;
        }
        fmt::print("  run {:<28} median {:6.2f}  min {:6.2f}  max {:6.2f}\n",
                   *args ? args : "(defaults)", stats::median(w), stats::min(w), stats::max(w));
        print_split(runs);
    }
    fmt::print("A/B, interleaved rounds (the round is the unit): time until a configuration compared with\n"
               "itself has a 95% CI of the ratio within the target (budget 120 s):\n");
    for (const char* test : {"cpuid", "inl_from_qemu"})
        for (double pct : {3.0, 1.0}) ab_resolution(test, pct, 120);
}

} // namespace

int main(int argc, char** argv) {
    try {
        bench_all(argc > 1 ? argv[1] : "", argc > 2 ? argv[2] : EB_BINARY);
        return 0;
    } catch (const std::exception& e) {  // no /dev/kvm, no permission: one line, no core
        std::fprintf(stderr, "exitbench_bench: %s\n", e.what());
        return 1;
    }
}
