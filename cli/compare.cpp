#include "cli/compare.h"

#include <chrono>
#include <cstring>
#include <numeric>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <unistd.h>

#include "cli/app.h"
#include "cli/errors.h"
#include "cli/parse.h"
#include "env/host_env.h"
#include "report/file.h"
#include "report/json.h"
#include "suite/compare.h"

namespace eb::cli {

using nlohmann::json;

std::vector<std::string> split_args(const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    bool have = false;
    char quote = 0;
    for (char c : s) {
        if (quote) {
            if (c == quote) quote = 0;
            else cur += c;
        } else if (c == '\'' || c == '"') {
            quote = c;
            have = true;
        } else if (c == ' ' || c == '\t') {
            if (have || !cur.empty()) out.push_back(cur);
            cur.clear();
            have = false;
        } else {
            cur += c;
        }
    }
    if (quote) throw UsageError("unbalanced quote in '" + s + "'");
    if (have || !cur.empty()) out.push_back(cur);
    return out;
}

void add_compare_options(CLI::App& cmd, CompareArgs& a) {
    add_run_options(cmd, a.common);
    cmd.add_option("--a", a.a, "configuration A: run options as one string, e.g. '--guest-msr spec_ctrl=1'");
    cmd.add_option("--b", a.b, "configuration B");
    cmd.add_option("--config", a.configs, "LABEL=OPTIONS, repeatable, for more than two configurations");
    cmd.add_option("--rounds", a.rounds, "interleaved rounds (default 5; with --time-budget, until precise)");
    cmd.add_option("--time-budget", a.time_budget, "stop once the differences are precise enough, or after this long");
    cmd.add_option("--precision", a.precision, "with --time-budget: target half-width of the 95% CI, in % (default 1)");
    cmd.add_option("--fail-if-slower", a.fail_if_slower, "exit 1 if a test got significantly slower by more than PCT %");
    cmd.add_option("--alpha", a.alpha, "significance level (default 0.05)");
    cmd.add_option("--seed", a.seed, "seed of the per-round order shuffle (default: random, printed)");
}

namespace {

double parse_double(const std::string& opt, const std::string& v, double lo, double hi) {
    char* end = nullptr;
    double x = std::strtod(v.c_str(), &end);
    if (v.empty() || !end || *end || !(x >= lo && x <= hi))
        throw UsageError(fmt::format("{} needs a number in [{:g}, {:g}], not '{}'", opt, lo, hi, v));
    return x;
}

suite::RunReport load_result(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw UsageError("cannot read " + path + ": " + std::strerror(errno));
    json j;
    try {
        j = json::parse(f);
    } catch (const json::exception&) {
        throw UsageError(path + " is not JSON");
    }
    try {
        return report::from_json(j);
    } catch (const std::exception& e) {
        throw UsageError(path + ": " + e.what());
    }
}

std::string status_note(const suite::ConfigSummary& c) {
    std::string s = c.status;
    if (c.ci_coverage < 0.95)
        s += fmt::format(", only {} samples: the median interval covers {:.0f}%, not 95%", c.samples.size(),
                         c.ci_coverage * 100);
    if (c.outliers) s += fmt::format(", {} outlier{} kept", c.outliers, c.outliers == 1 ? "" : "s");
    if (c.cv > 0.05) s += fmt::format(", unstable: CV {:.1f}%, consider pinning (--cpu/--pin) and an idle host", c.cv * 100);
    return s;
}

const char* verdict_text(stats::Verdict v) {
    switch (v) {
    case stats::Verdict::Faster: return "faster";
    case stats::Verdict::Slower: return "slower";
    case stats::Verdict::NoDifference: break;
    }
    return "no detectable difference";
}

std::string render(const suite::ComparisonReport& c, double alpha) {
    std::string out;
    double conf = (1 - alpha) * 100;
    for (const auto& t : c.tests) {
        out += "\n" + t.test + "\n";
        size_t w = 1;
        for (const auto& k : t.configs) w = std::max(w, k.label.size());
        for (const auto& k : t.configs) {
            if (k.samples.empty()) {
                out += fmt::format("  {:<{}}  no samples ({})\n", k.label, w, k.status);
                continue;
            }
            out += fmt::format("  {:<{}}  median {:>10.1f} cycles  95% CI [{:.1f}, {:.1f}]  CV {:>5.1f}%  n={}  ({})\n",
                               k.label, w, k.median, k.median_ci.lo, k.median_ci.hi, k.cv * 100,
                               k.samples.size(), status_note(k));
        }
        for (size_t i = 0; i < t.vs_first.size(); ++i) {
            const auto& v = t.vs_first[i];
            out += fmt::format("  {} vs {}: {:+.1f} cycles ({:+.2f}%), {:g}% CI [{:+.1f}, {:+.1f}] ([{:+.2f}%, {:+.2f}%]), "
                               "p = {:.3g} (Mann-Whitney): {}\n",
                               t.configs[i + 1].label, t.configs[0].label, v.shift.estimate, v.rel_shift * 100, conf,
                               v.shift.ci.lo, v.shift.ci.hi, v.rel_ci.lo * 100, v.rel_ci.hi * 100, v.p,
                               verdict_text(v.verdict));
            out += fmt::format("    smallest difference this run could detect: {:.1f} cycles ({:.2f}%)\n",
                               v.min_detectable, v.min_detectable / t.configs[0].median * 100);
        }
    }
    for (const auto& w : c.warnings) out += "warning: " + w + "\n";
    return out;
}

json to_json(const suite::ComparisonReport& c) {
    json tests = json::array();
    for (const auto& t : c.tests) {
        json cfgs = json::array();
        for (const auto& k : t.configs)
            cfgs.push_back({{"label", k.label}, {"n", k.samples.size()}, {"median", k.median},
                            {"median_ci", {k.median_ci.lo, k.median_ci.hi}}, {"cv", k.cv},
                            {"outliers", k.outliers}, {"status", k.status}, {"samples", k.samples}});
        json vs = json::array();
        for (const auto& v : t.vs_first)
            vs.push_back({{"shift_cycles", v.shift.estimate}, {"shift_ci", {v.shift.ci.lo, v.shift.ci.hi}},
                          {"relative", v.rel_shift}, {"relative_ci", {v.rel_ci.lo, v.rel_ci.hi}}, {"p", v.p},
                          {"verdict", verdict_text(v.verdict)}, {"min_detectable_cycles", v.min_detectable}});
        tests.push_back({{"test", t.test}, {"configs", cfgs}, {"vs_first", vs}});
    }
    return {{"schema", "exitbench-compare"}, {"schema_version", 1}, {"labels", c.labels},
            {"tests", tests}, {"warnings", c.warnings}};
}

// Largest relative CI half-width over all comparisons: the run's precision.
double worst_precision(const suite::ComparisonReport& c) {
    double worst = 0;
    for (const auto& t : c.tests)
        for (const auto& v : t.vs_first) worst = std::max(worst, (v.rel_ci.hi - v.rel_ci.lo) / 2);
    return c.tests.empty() ? 1e9 : worst;
}

} // namespace

int cmd_compare(const std::string& device, const CompareArgs& a, const std::atomic<bool>& interrupt) {
    double alpha = parse_double("--alpha", a.alpha, 1e-6, 0.5);
    std::optional<double> fail_pct;
    if (!a.fail_if_slower.empty()) fail_pct = parse_double("--fail-if-slower", a.fail_if_slower, 0, 1e6);

    std::vector<std::string> labels;
    std::vector<std::vector<suite::RunReport>> runs;
    std::vector<std::string> header;
    const auto& in = a.common.tests;
    bool files = in.size() == 2 && !a.a && !a.b && a.configs.empty() && a.preset.empty() &&
                 std::all_of(in.begin(), in.end(), [](const auto& p) { return std::filesystem::is_regular_file(p); });
    if (files) {
        for (const auto& p : in) {
            labels.push_back(p);
            runs.push_back({load_result(p)});
        }
        for (const auto& d : suite::host_differences(runs[0][0], runs[1][0]))
            header.push_back("warning: hosts differ: " + d);
        auto facts = env::diff(runs[0][0].env, runs[1][0].env);
        for (const auto& d : facts) header.push_back(fmt::format("  fact {}: '{}' vs '{}'", d.key, d.a, d.b));
        if (header.empty()) header.push_back("both results come from hosts with the same recorded facts");
    } else {
        std::vector<std::pair<std::string, std::string>> cfgs = a.preset;
        if (a.a || a.b) {
            if (!a.a || !a.b) throw UsageError("--a and --b go together");
            cfgs = {{"A", *a.a}, {"B", *a.b}};
        }
        for (const auto& c : a.configs) {
            auto eq = c.find('=');
            if (eq == std::string::npos || eq == 0) throw UsageError("--config takes LABEL=OPTIONS, not '" + c + "'");
            cfgs.emplace_back(c.substr(0, eq), c.substr(eq + 1));
        }
        if (cfgs.size() < 2)
            throw UsageError("compare needs two saved result files, or --a/--b (or two --config) to run live");
        uint64_t rounds = a.rounds.empty() ? (a.time_budget.empty() ? 5 : 1000) : parse_positive("--rounds", a.rounds);
        double budget = a.time_budget.empty() ? 0 : parse_duration("--time-budget", a.time_budget);
        double precision = parse_double("--precision", a.precision, 0.001, 100) / 100;
        uint64_t seed = a.seed.empty() ? std::random_device{}() : parse_positive("--seed", a.seed);
        std::vector<RunPlan> plans;
        for (const auto& [label, opts] : cfgs) {
            RunArgs args = a.common;
            if (args.repeats.empty()) args.repeats = "3";  // per round; rounds pool them
            CLI::App parser;
            add_run_options(parser, args);
            auto words = split_args(opts);
            std::vector<std::string> rev(words.rbegin(), words.rend());
            try {
                parser.parse(rev);
            } catch (const CLI::ParseError& e) {
                throw UsageError("configuration " + label + ": " + e.what());
            }
            args.tests = a.common.tests;
            plans.push_back(plan_run(args));
            labels.push_back(label);
            header.push_back(fmt::format("  {}: {}", label, opts.empty() ? "(defaults)" : opts));
        }
        if (!a.common.json.empty()) require_writable(a.common.json);
        auto sys = open_kvm(device);
        runs.resize(plans.size());
        std::mt19937_64 rng(seed);
        auto t0 = std::chrono::steady_clock::now();
        uint64_t done = 0;
        for (; done < rounds && !interrupt.load(); ++done) {
            std::vector<size_t> order(plans.size());
            std::iota(order.begin(), order.end(), 0);
            std::shuffle(order.begin(), order.end(), rng);
            for (size_t k : order) {
                if (interrupt.load()) break;
                runs[k].push_back(execute(sys, plans[k], interrupt, false));
            }
            if (isatty(STDERR_FILENO)) fmt::print(stderr, "round {} done\n", done + 1);
            double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (budget > 0 && done >= 1) {
                if (elapsed >= budget) { ++done; break; }
                if (worst_precision(suite::compare_runs(labels, runs, alpha)) <= precision) { ++done; break; }
            }
        }
        header.insert(header.begin(),
                      fmt::format("{} configurations, {} round{} interleaved (order shuffled each round, --seed {})",
                                  plans.size(), done, done == 1 ? "" : "s", seed));
    }

    auto cmp = suite::compare_runs(labels, runs, alpha);
    if (cmp.tests.empty() && files) throw UsageError(in[0] + " and " + in[1] + " share no test");
    fmt::print("exitbench compare\n{}\n", fmt::join(header, "\n"));
    std::cout << render(cmp, alpha) << std::flush;
    if (!a.common.json.empty()) report::write_file_atomic(a.common.json, to_json(cmp).dump(2) + "\n");
    if (interrupt.load()) return kInterrupted;
    if (fail_pct)
        for (const auto& t : cmp.tests)
            for (const auto& v : t.vs_first)
                if (v.verdict == stats::Verdict::Slower && v.rel_shift * 100 > *fail_pct) {
                    fmt::print(stderr, "exitbench: {} is {:.2f}% slower (more than {:g}%)\n", t.test,
                               v.rel_shift * 100, *fail_pct);
                    return kTestFailed;
                }
    return cmp.tests.empty() ? kTestFailed : kOk;
}

} // namespace eb::cli
