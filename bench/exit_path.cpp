// The VMM's cycles per userspace exit beside the bare KVM_RUN loop (floor.h),
// with the layers between them measured one at a time on the same guest.
#include <fmt/format.h>
#include <map>

#include "bench/common.h"
#include "bench/floor.h"
#include "bench/sections.h"
#include "stats/summary.h"

namespace eb::bench {

namespace {

// Issue 42's goal: within 1.2x of the floor loop, or within +100 cycles of it.
bool within_goal(double ours, double floor) { return ours <= 1.2 * floor || ours - floor <= 100; }

// The p50 per kind ("pio", "mmio", "msr") from `exitbench run`'s own
// host-side timestamps (KVM_RUN return -> next KVM_RUN). 10 batches of 2048
// exits each: the floor's 20000 exits, so both medians rest on as many samples.
std::map<std::string, double> vmm_handling(const std::string& exitbench) {
    std::map<std::string, double> p50;
    Scratch dir;
    if (!dir.ok()) return p50;
    const std::pair<const char*, const char*> kinds[] = {
        {"pio", "inl_from_qemu"}, {"mmio", "mmio_from_user"}, {"msr", "rdmsr_to_user"}};
    auto argv = words("run inl_from_qemu mmio_from_user rdmsr_to_user --sessions 1 -r 10 -n 2048 --no-save "
                      "--no-trace-verify --json");
    argv.insert(argv.begin(), exitbench);
    argv.push_back(dir.file("vmm.json"));
    auto c = run_quiet(argv);
    fmt::print("VMM handling per userspace exit, cycles (host TSC, KVM_RUN return -> next KVM_RUN; 10 batches of "
               "2048), {}:\n", exitbench);
    std::string why;
    auto doc = read_json(dir.file("vmm.json"), why);
    if (!doc) {
        fmt::print("  run failed (status {}): {}\n", c.status, why);
        return p50;
    }
    for (const auto& [kind, test] : kinds)
        for (const auto& r : (*doc)["results"]) {
            if (r["name"] != test) continue;
            const auto& s = r["userspace_split"];
            if (s.is_null()) {
                fmt::print("  {:<5} {:<16} no timed exits ({})\n", kind, test, r["status"].get<std::string>());
                continue;
            }
            p50[kind] = s["vmm_p50_cycles"].get<double>();
            fmt::print("  {:<5} {:<16} p50 {:6.0f}  p99 {:6.0f}  mean {:6.0f}  of {:8.0f} per exit, n={}\n", kind,
                       test, s["vmm_p50_cycles"].get<double>(), s["vmm_p99_cycles"].get<double>(),
                       s["vmm_mean_cycles"].get<double>(), s["exit_cycles"].get<double>(),
                       s["exits"].get<uint64_t>());
        }
    return p50;
}

// The floor and each layer over it, p50 of 20000 exits; the floor's p50, or nullopt.
std::optional<double> layers(FloorExit kind) {
    std::optional<double> floor;
    for (auto path : {FloorPath::Bare, FloorPath::VcpuRaw, FloorPath::VcpuRawRecorded}) {
        std::string why;
        auto loop = floor_exit_loop(kind, 20000, why, path);
        if (!loop) {
            fmt::print("    {:<5} {:<40} not measurable here: {}\n", floor_exit_name(kind), floor_path_name(path), why);
            if (path == FloorPath::Bare) return std::nullopt;
            continue;
        }
        double p50 = stats::median(loop->vmm_cycles);
        if (path == FloorPath::Bare) {
            floor = p50;
            fmt::print("    {:<5} {:<40} {:6.0f}  (round trip {:.0f})\n", floor_exit_name(kind), floor_path_name(path),
                       p50, stats::median(loop->round_trip_cycles));
        } else {
            fmt::print("    {:<5} {:<40} {:6.0f}  {:+5.0f} over the floor\n", floor_exit_name(kind),
                       floor_path_name(path), p50, p50 - *floor);
        }
    }
    return floor;
}

} // namespace

void section_vmm(const std::string& exitbench) {
    auto ours = vmm_handling(exitbench);
    fmt::print("VMM time per userspace exit against the floor (bare KVM_RUN loop, no dispatch), p50 cycles;\n"
               "  the layers between, each over the same real-mode guest:\n");
    bool met = true, any = false;
    std::string worst;
    double worst_ratio = 0;
    for (auto kind : {FloorExit::Pio, FloorExit::Mmio, FloorExit::Msr}) {
        auto floor = layers(kind);
        const char* name = floor_exit_name(kind);
        auto it = ours.find(name);
        if (!floor || it == ours.end()) {
            met = false;
            fmt::print("  {:<5} {}\n", name, floor ? "exitbench's figure is missing above" : "no floor here");
            continue;
        }
        any = true;
        print_ratio(fmt::format("{} exitbench's VMM, p50", name), it->second, *floor, "cycles");
        met = met && within_goal(it->second, *floor);
        if (it->second / *floor > worst_ratio) {
            worst_ratio = it->second / *floor;
            worst = fmt::format("{} {:.2f}x ({:+.0f} cycles)", name, worst_ratio, it->second - *floor);
        }
    }
    print_verdict("VMM per exit", any && met, any ? "worst " + worst : "no figure",
                  "<= 1.2x the floor loop or <= +100 cycles, every kind");
}

} // namespace eb::bench
