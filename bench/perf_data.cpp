// perf.data read directly: `profile import` plus `profile report --perf`,
// and `profile report` of the perf.data itself, against `perf kvm stat
// report --event=vmexit` on the same file of 1 M kvm events (made from the
// real fixture by tests/tools/perf_data_gen), in turn, with peak memory per
// event. Goals (issue 53): at least 5x faster than perf, at most 45 B/event.
#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "bench/common.h"
#include "bench/sections.h"
#include "stats/summary.h"
#include "sys/process.h"

namespace eb::bench {

namespace {

constexpr uint64_t kEvents = 1000000;
constexpr int kRounds = 5;

struct Figure {
    std::vector<double> ms;
    double peak_mib = 0;
    void add(const Command& c) { ms.push_back(c.wall_s * 1e3), peak_mib = std::max(peak_mib, c.peak_mib); }
    double median() const { return stats::median(ms); }
};

// Runs argv, refusing a failure (a figure of a failed run means nothing).
Command must(const std::vector<std::string>& argv) {
    Command c = run_quiet(argv);
    if (c.status != 0) throw std::runtime_error(fmt::format("'{}' failed with status {}", argv[0] + " " + argv[1],
                                                            c.status));
    return c;
}

} // namespace

void section_perf_data(const std::string& exitbench, const std::string& generator, const std::string& fixture) {
    Scratch s;
    if (!s.ok()) throw std::runtime_error("no scratch directory");
    std::filesystem::copy_file(fixture, s.file("perf.data.gz"));
    must({"gzip", "-d", s.file("perf.data.gz")});
    std::string data = s.file("large.data"), trace = s.file("large.trace");
    must({generator, s.file("perf.data"), data, "--events", std::to_string(kEvents)});
    bool peer = sys::find_program("perf").has_value();
    fmt::print("perf.data of {} kvm events ({:.0f} MB), wall ms, median of {} rounds in turn{}:\n", kEvents,
               double(std::filesystem::file_size(data)) / 1e6, kRounds, peer ? "" : " (perf is not installed)");
    must({"sync"});  // the new file's writeback is not charged to the first round
    Figure import, report, direct, perf, floor, read;
    for (int i = -1; i < kRounds; ++i) {  // round -1 warms the page cache and is not counted
        if (i < 0) {
            must({"cat", data});
            continue;
        }
        floor.add(must({exitbench, "--version"}));
        read.add(must({"cat", data}));
        import.add(must({exitbench, "profile", "import", data, "-o", trace}));
        report.add(must({exitbench, "profile", "report", "-i", trace, "--perf"}));
        direct.add(must({exitbench, "profile", "report", "-i", data, "--perf"}));
        if (peer) perf.add(must({"perf", "kvm", "-i", data, "stat", "report", "--event=vmexit"}));
    }
    double two_step = stats::median([&] {
        std::vector<double> t;
        for (int i = 0; i < kRounds; ++i) t.push_back(import.ms[i] + report.ms[i]);
        return t;
    }());
    auto per_event = [&](double mib) { return (mib - floor.peak_mib) * 1048576.0 / double(kEvents); };
    fmt::print("  exitbench --version (start-up)         {:8.1f} ms  {:6.1f} MiB\n", floor.median(), floor.peak_mib);
    fmt::print("  cat PERF.DATA (reading it, the floor)  {:8.1f} ms\n", read.median());
    fmt::print("  profile import                         {:8.1f} ms  {:6.1f} MiB  {:5.1f} B/event\n", import.median(),
               import.peak_mib, per_event(import.peak_mib));
    fmt::print("  profile report -i TRACE --perf         {:8.1f} ms  {:6.1f} MiB  {:5.1f} B/event\n", report.median(),
               report.peak_mib, per_event(report.peak_mib));
    fmt::print("  import plus report                     {:8.1f} ms\n", two_step);
    fmt::print("  profile report -i PERF.DATA --perf     {:8.1f} ms  {:6.1f} MiB  {:5.1f} B/event\n", direct.median(),
               direct.peak_mib, per_event(direct.peak_mib));
    if (!peer) {
        print_verdict("perf.data", false, "no perf to compare with", ">= 5x faster than perf kvm stat report");
        return;
    }
    fmt::print("  perf kvm stat report --event=vmexit    {:8.1f} ms  {:6.1f} MiB\n", perf.median(), perf.peak_mib);
    double best = std::min(two_step, direct.median());
    double mem = per_event(std::max(direct.peak_mib, import.peak_mib));
    fmt::print("  perf / (import plus report) {:.2f}x, perf / report of the perf.data {:.2f}x\n",
               perf.median() / two_step, perf.median() / direct.median());
    print_verdict("perf.data", perf.median() / best >= 5 && mem <= 45,
                  fmt::format("{:.2f}x perf, {:.1f} B/event above start-up", perf.median() / best, mem),
                  ">= 5x faster than perf kvm stat report, <= 45 B/event");
}

} // namespace eb::bench
