// Prints how long exitbench takes: VMM start-up (open /dev/kvm to the guest's
// first exit), the VMM's own cycles per userspace exit, and the wall time of
// a whole `exitbench run`. `exitbench_bench vmm` prints only the VMM's cycles.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <string_view>
#include <vector>

#include "guest/abi.h"
#include "kvm/system.h"
#include "stats/summary.h"
#include "vmm/devices.h"
#include "vmm/machine.h"

using namespace eb;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0, Clock::time_point t1) {
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

struct Startup {
    double open_ms, build_ms, first_exit_ms;
};

Startup one_startup() {
    const auto& img = vmm::GuestImage::embedded();
    auto t0 = Clock::now();
    auto sys = kvm::System::open();
    auto t1 = Clock::now();
    vmm::MachineConfig cfg;
    cfg.batch = img.body("baseline")->batch;
    vmm::Machine m(sys, img, cfg);
    Clock::time_point first;
    m.pio().add("ucall", abi::kUcallPort, 4, [&](const vmm::Access&) {
        first = Clock::now();
        return vmm::Action::Stop;
    });
    auto t2 = Clock::now();
    m.start();
    while (!m.wait(std::chrono::milliseconds(100))) {
    }
    return {ms_since(t0, t1), ms_since(t0, t2), ms_since(t0, first)};
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
// host-side timestamps (KVM_RUN return -> next KVM_RUN).
void vmm_handling() {
    char dir[] = "/tmp/exitbench_bench_XXXXXX";
    if (!mkdtemp(dir)) return;
    std::string json = std::string(dir) + "/vmm.json";
    const std::pair<const char*, const char*> kinds[] = {
        {"pio", "inl_from_qemu"}, {"mmio", "mmio_from_user"}, {"msr", "rdmsr_to_user"}};
    std::string cmd = fmt::format("{} run inl_from_qemu mmio_from_user rdmsr_to_user --sessions 1 -r 5 --no-save "
                                  "--json {} >/dev/null 2>&1", EB_BINARY, json);
    int st = std::system(cmd.c_str());
    fmt::print("VMM handling per userspace exit, cycles (host TSC, KVM_RUN return -> next KVM_RUN; 5 batches):\n");
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
}

double run_suite(const char* args) {
    auto t0 = Clock::now();
    std::string cmd = fmt::format("{} run {} >/dev/null 2>&1", EB_BINARY, args);
    int st = std::system(cmd.c_str());
    (void)st;
    return ms_since(t0, Clock::now()) / 1e3;
}

} // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::string_view(argv[1]) == "vmm") {
        vmm_handling();
        return 0;
    }
    std::vector<double> open, build, first;
    for (int i = 0; i < 30; ++i) {
        auto s = one_startup();
        open.push_back(s.open_ms);
        build.push_back(s.build_ms);
        first.push_back(s.first_exit_ms);
    }
    fmt::print("VMM start-up, 30 runs (median / min / max, ms):\n");
    fmt::print("  open /dev/kvm                      {:7.3f} {:7.3f} {:7.3f}\n", stats::median(open),
               stats::min(open), stats::max(open));
    fmt::print("  ... VM, memory, vCPU, boot state   {:7.3f} {:7.3f} {:7.3f}\n", stats::median(build),
               stats::min(build), stats::max(build));
    fmt::print("  ... first guest exit (its ucall)   {:7.3f} {:7.3f} {:7.3f}\n", stats::median(first),
               stats::min(first), stats::max(first));

    vmm_handling();
    fmt::print("exitbench run, wall time (s), 3 runs each:\n");
    for (const char* args : {"", "--iterations 64 --repeats 3"}) {
        std::vector<double> w;
        for (int i = 0; i < 3; ++i) w.push_back(run_suite(args));
        fmt::print("  run {:<28} median {:6.2f}  min {:6.2f}  max {:6.2f}\n",
                   *args ? args : "(defaults)", stats::median(w), stats::min(w), stats::max(w));
    }
    fmt::print("A/B, interleaved rounds (the round is the unit): time until a configuration compared with\n"
               "itself has a 95% CI of the ratio within the target (budget 120 s):\n");
    for (const char* test : {"cpuid", "inl_from_qemu"})
        for (double pct : {3.0, 1.0}) ab_resolution(test, pct, 120);
    return 0;
}
