#include "cli/recipe.h"

#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/app.h"
#include "cli/compare.h"
#include "cli/emit.h"
#include "cli/errors.h"
#include "cli/suggest.h"

namespace eb::cli {

using nlohmann::json;


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

int cmd_recipe_run(const std::string& device, const std::string& name, const CompareArgs& opts,
                   const std::atomic<bool>& interrupt) {
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
    // A recipe is a ready-made `compare`: its configurations run interleaved.
    // (The options that would override them do not exist on `recipe run`.)
    CompareArgs c = opts;
    c.common.tests = r->tests;
    for (const auto& cfg : r->configs) c.preset.emplace_back(cfg.label, cfg.args);
    // Its outputs are checked before its header prints: a bad --format is one line.
    plan_outputs(opts.common.format, opts.common.exports, opts.common.json, report::Subject::Compare);
    // Above a report for people; on stderr where stdout is for a parser (JSON, KTAP, JUnit, ...).
    const auto& f = opts.common.format;
    FILE* out = f == "table" || f == "text" || f == "markdown" ? stdout : stderr;
    fmt::print(out, "recipe {}: {}\n", r->name, r->question);
    if (!r->seed.empty()) fmt::print(out, "seed: {}\n", r->seed);
    std::cout << std::flush;
    return cmd_compare(device, c, interrupt);
}

} // namespace eb::cli
