// Whole `exitbench run`s: the default suite's wall time and where it goes,
// kvm-unit-tests' vmexit group against run_tests.sh, and A/B resolution.
#include <cstring>
#include <fmt/format.h>
#include <string_view>
#include <vector>

#include "bench/common.h"
#include "bench/sections.h"
#include "stats/summary.h"
#include "suite/registry.h"
#include "vmm/host.h"

namespace eb::bench {

namespace {

constexpr double kTimeGoalMs = 20;  // the default --time-goal a batch aims at

// One `exitbench run ARGS`, its wall time, its JSON, and whether its figures
// count: it succeeded, or every test that failed is one the registry knows to
// fail on this backend (the run then exits 1, yet measured everything else).
struct SuiteRun {
    double wall_s = 0;
    bool usable = false;
    std::string why;  // when not usable
    nlohmann::json doc;
    size_t batches = 0;  // measured batches, every test and session
};

// "" when every failure in `doc` is explained, else the first that is not.
std::string unexplained_failure(const nlohmann::json& doc) {
    static const vmm::Backend backend = vmm::detect_backend();
    for (const auto& r : doc["results"]) {
        std::string st = r.value("status", "");
        if (st != "failed" && st != "hung" && st != "error" && st != "mismatch") continue;
        const auto* t = suite::find_test(r.value("name", ""));
        if (!t || !t->known_issue(backend)) return r.value("name", "?") + " " + st;
    }
    return "";
}

SuiteRun run_suite(const std::string& exitbench, const std::string& args) {
    SuiteRun out;
    Scratch dir;
    // Not saved: a benchmark must not fill the user's history with its runs.
    auto argv = words(args);
    argv.insert(argv.begin(), {exitbench, "run"});
    argv.insert(argv.end(), {"--no-save", "--json", dir.file("run.json")});
    auto c = run_quiet(argv);
    out.wall_s = c.wall_s;
    auto doc = read_json(dir.file("run.json"), out.why);
    if (!doc) return out;
    out.doc = std::move(*doc);
    out.why = c.status == 0 ? "" : unexplained_failure(out.doc);
    if (c.status != 0 && out.why.empty() && out.doc["results"].empty()) out.why = "no results";
    out.usable = out.why.empty();
    for (const auto& r : out.doc["results"])
        for (const auto& s : r["sessions"]) out.batches += s["samples_cycles_per_iter"].size();
    return out;
}

double sum_of(const std::vector<SuiteRun>& runs, const char* key) {
    double s = 0;
    for (const auto& r : runs)
        if (r.doc.contains("wall_time")) s += r.doc["wall_time"].value(key, 0.0);
    return s;
}

// The runs' phases summed, each as a share of their summed total, and the
// average measured batch against the time goal.
void print_split(const std::vector<SuiteRun>& runs) {
    double total = sum_of(runs, "total_s");
    if (total <= 0) return;
    std::string line;
    for (const char* k : {"measured_s", "warmup_s", "vm_start_s", "teardown_s", "trace_verify_s", "setup_s",
                          "watchdog_s", "other_s"})
        line += fmt::format(" {} {:.0f}%", std::string_view(k, std::strlen(k) - 2), 100 * sum_of(runs, k) / total);
    double wall = 0;
    size_t batches = 0;
    for (const auto& r : runs) wall += r.wall_s, batches += r.batches;
    fmt::print("    its own account ({:.2f} s of the runs' {:.2f} s):{}\n", total, wall, line);
    if (batches)
        fmt::print("    average measured batch {:.1f} ms (goal {:.0f} ms), {} batches per run\n",
                   1e3 * sum_of(runs, "measured_s") / double(batches), kTimeGoalMs, batches / runs.size());
}

// `n` runs of `args`; the median wall time of the usable ones, or nullopt.
std::optional<double> timed_runs(const std::string& exitbench, const std::string& label, const std::string& args,
                                 int n, std::vector<SuiteRun>& runs) {
    std::vector<double> w;
    for (int i = 0; i < n; ++i) {
        runs.push_back(run_suite(exitbench, args));
        if (runs.back().usable) w.push_back(runs.back().wall_s);
        else fmt::print("  run {:<28} run {}: no figure ({})\n", label, i + 1, runs.back().why);
    }
    if (w.empty()) return std::nullopt;
    fmt::print("  run {:<28} median {:6.2f}  min {:6.2f}  max {:6.2f} s ({} of {} runs)\n", label, stats::median(w),
               stats::min(w), stats::max(w), w.size(), n);
    return stats::median(w);
}

} // namespace

void section_suite(const std::string& exitbench) {
    fmt::print("exitbench run, wall time (s), 3 runs each; the floor is the sum of the measured batches:\n");
    std::optional<double> defaults;
    for (const auto& [label, args] : {std::pair<std::string, std::string>{"(defaults)", ""},
                                      {"--iterations 64 --repeats 3", "--iterations 64 --repeats 3"}}) {
        std::vector<SuiteRun> runs;
        auto med = timed_runs(exitbench, label, args, 3, runs);
        if (!med) continue;
        print_split(runs);
        if (args.empty()) {
            defaults = med;
            print_ratio("default suite, wall vs measured batches", *med, sum_of(runs, "measured_s") / 3, "s");
        }
    }
    print_verdict("default suite", defaults && *defaults <= 20,
                  defaults ? fmt::format("{:.2f} s", *defaults) : "no usable run", "<= 20 s");
}

void section_kut(const std::string& exitbench, const std::string& kut_dir) {
    // kvm-unit-tests' x86/unittests.cfg, `groups = vmexit`: its 12 vmexit_* entries.
    const std::string tests = "cpuid vmcall mov_from_cr8 mov_to_cr8 inl_from_pmtimer ipi ipi_halt ple_round_robin "
                              "tscdeadline tscdeadline_immed toggle_cr0_wp toggle_cr4_pge";
    fmt::print("kvm-unit-tests' vmexit group, wall time (s):\n");
    std::vector<SuiteRun> runs;
    auto ours = timed_runs(exitbench, "the same 12 tests", tests, 3, runs);
    if (ours) print_split(runs);
    if (kut_dir.empty()) {
        fmt::print("  run_tests.sh: not measured (give its kvm-unit-tests directory: exitbench_bench kut EXITBENCH DIR)\n");
        print_verdict("vmexit group", false, ours ? fmt::format("{:.2f} s, no peer", *ours) : "no figure",
                      "<= 0.05x run_tests.sh -g vmexit");
        return;
    }
    auto peer = run_quiet({"./run_tests.sh", "-g", "vmexit"}, kut_dir);
    fmt::print("  run_tests.sh -g vmexit in {}: {:.2f} s (status {})\n", kut_dir, peer.wall_s, peer.status);
    if (!ours) return print_verdict("vmexit group", false, "no figure", "<= 0.05x run_tests.sh -g vmexit");
    print_ratio("the 12 tests vs run_tests.sh -g vmexit", *ours, peer.wall_s, "s");
    print_verdict("vmexit group", *ours / peer.wall_s <= 0.05, fmt::format("{:.3f}x", *ours / peer.wall_s),
                  "<= 0.05x run_tests.sh -g vmexit");
}

// An interleaved `exitbench compare` of a configuration against itself, under
// the sound method (the round is the unit), until the 95% interval of the
// ratio is within +-target: the time and rounds it took.
void section_ab(const std::string& exitbench) {
    fmt::print("A/B, interleaved rounds (the round is the unit): time until a configuration compared with\n"
               "itself has a 95% CI of the ratio within the target (budget 120 s):\n");
    for (const char* test : {"cpuid", "inl_from_qemu"})
        for (double pct : {3.0, 1.0}) {
            Scratch dir;
            auto c = run_quiet({exitbench, "compare", test, "--a", "", "--b", "", "--time-budget", "120s",
                                "--precision", fmt::format("{}", pct), "--json", dir.file("ab.json")});
            std::string why;
            auto doc = read_json(dir.file("ab.json"), why);
            double half = -1, detectable = -1;
            size_t rounds = 0;
            if (doc)
                for (const auto& t : (*doc)["tests"])
                    if (t["test"] == test) {
                        const auto& e = t["vs_first"][0];
                        double r = e["ratio"].get<double>();
                        half = (e["ratio_ci"][1].get<double>() - e["ratio_ci"][0].get<double>()) / 2 / r * 100;
                        detectable = e["detectable_relative"].get<double>() * 100;
                        rounds = e["units"][0].get<size_t>();
                    }
            if (c.status != 0 || half < 0)
                fmt::print("  {:<16} +-{}%: compare failed (status {})\n", test, pct, c.status);
            else
                fmt::print("  {:<16} +-{}%: {} in {:6.1f} s ({} rounds; CI half-width {:.2f}%, detectable with 80% "
                           "power {:.2f}%)\n", test, pct, half <= pct ? "resolved" : "NOT resolved", c.wall_s, rounds,
                           half, detectable);
        }
}

} // namespace eb::bench
