#include "cli/recipe.h"

#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "cli/app.h"
#include "cli/errors.h"
#include "cli/suggest.h"
#include "report/file.h"
#include "report/json.h"
#include "stats/summary.h"

namespace eb::cli {

using nlohmann::json;

Recipe parse_recipe(const std::string& text, const std::string& file) {
    try {
        json j = json::parse(text);
        Recipe r;
        r.name = j.at("name").get<std::string>();
        r.question = j.at("question").get<std::string>();
        r.seed = j.value("seed", "");
        r.tests = j.at("tests").get<std::vector<std::string>>();
        for (const auto& c : j.at("configs"))
            r.configs.push_back({c.at("label").get<std::string>(), c.at("args").get<std::vector<std::string>>()});
        if (r.tests.empty() || r.configs.size() < 2) throw std::runtime_error("needs tests and two configs");
        return r;
    } catch (const std::exception& e) {
        throw std::runtime_error("recipe " + file + ": " + e.what());
    }
}

std::vector<Recipe> recipes() {
    std::vector<Recipe> out;
    for (const auto& [file, text] : recipe_files()) out.push_back(parse_recipe(text, file));
    return out;
}

int cmd_recipe_list() {
    for (const auto& r : recipes()) {
        fmt::print("{}\n  {}\n", r.name, r.question);
        if (!r.seed.empty()) fmt::print("  seed: {}\n", r.seed);
        fmt::print("  tests: {}\n", fmt::join(r.tests, ", "));
        for (const auto& c : r.configs) fmt::print("  config '{}': {}\n", c.label, fmt::join(c.args, " "));
    }
    return kOk;
}

namespace {

const suite::TestResult* find(const suite::RunReport& r, const std::string& name) {
    for (const auto& t : r.results)
        if (t.name == name) return &t;
    return nullptr;
}

std::string cell(const suite::TestResult* t) {
    if (!t || t->samples.empty()) return t ? suite::status_name(t->status) : "-";
    return fmt::format("{:.0f} [{:.0f}-{:.0f}] {}", stats::median(t->samples), stats::min(t->samples),
                       stats::max(t->samples), suite::status_name(t->status));
}

} // namespace

int cmd_recipe_run(const std::string& device, const std::string& name, const RunArgs& common) {
    auto all = recipes();
    const Recipe* r = nullptr;
    std::vector<std::string> names;
    for (const auto& x : all) {
        names.push_back(x.name);
        if (x.name == name) r = &x;
    }
    if (!r) {
        auto s = suggest(name, names);
        throw UsageError(fmt::format("unknown recipe '{}'{}; 'exitbench recipe list' shows them", name,
                                     s ? fmt::format(" (did you mean '{}'?)", *s) : ""));
    }
    // Every configuration is validated before anything runs.
    std::vector<RunPlan> plans;
    for (const auto& c : r->configs) {
        RunArgs a = common;
        CLI::App parser;
        add_run_options(parser, a);
        std::vector<std::string> argv(c.args.rbegin(), c.args.rend());  // CLI11 parses a reversed vector
        parser.parse(argv);
        a.tests = r->tests;
        plans.push_back(plan_run(a));
    }
    if (!common.json.empty()) report::check_writable(common.json);

    auto sys = open_kvm(device);
    std::atomic<bool> never{false};
    std::vector<suite::RunReport> reps;
    for (size_t i = 0; i < plans.size(); ++i) {
        fmt::print(stderr, "recipe {}: configuration '{}'\n", r->name, r->configs[i].label);
        reps.push_back(execute(sys, plans[i], never, isatty(STDERR_FILENO)));
    }

    fmt::print("recipe {}: {}\n", r->name, r->question);
    if (!r->seed.empty()) fmt::print("seed: {}\n", r->seed);
    fmt::print("median cycles per iteration [min-max over repeats], one configuration after another;\n"
               "no significance test is made here: overlapping ranges mean no demonstrated difference.\n\n");
    size_t w = 18;
    for (const auto& t : r->tests) w = std::max(w, t.size());
    std::string head = fmt::format("{:<{}}", "test", w);
    for (const auto& c : r->configs) head += fmt::format("  {:>32}", c.label);
    fmt::print("{}  {:>8}\n", head, "change");
    bool failed = false;
    for (const auto& t : r->tests) {
        std::string row = fmt::format("{:<{}}", t, w);
        std::vector<const suite::TestResult*> res;
        for (const auto& rep : reps) {
            res.push_back(find(rep, t));
            row += fmt::format("  {:>32}", cell(res.back()));
            if (res.back() && suite::is_failure(res.back()->status)) failed = true;
        }
        std::string change = "-";
        if (res[0] && res.back() && !res[0]->samples.empty() && !res.back()->samples.empty()) {
            double a = stats::median(res[0]->samples), b = stats::median(res.back()->samples);
            change = fmt::format("{:+.1f}%", (b - a) / a * 100);
        }
        fmt::print("{}  {:>8}\n", row, change);
        for (size_t i = 0; i < res.size(); ++i)
            if (res[i] && !res[i]->ipi_latency_cycles.empty())
                fmt::print("{:<{}}  receiver latency under '{}': {:.0f} cycles\n", "", w, r->configs[i].label,
                           stats::median(res[i]->ipi_latency_cycles));
    }
    if (!common.json.empty()) {
        json doc = {{"recipe", r->name}, {"runs", json::array()}};
        for (size_t i = 0; i < reps.size(); ++i)
            doc["runs"].push_back({{"label", r->configs[i].label}, {"result", report::to_json(reps[i])}});
        report::write_file_atomic(common.json, doc.dump(2) + "\n");
    }
    return failed ? kTestFailed : kOk;
}

} // namespace eb::cli
