#include "cli/recipe.h"
#include "cli/emulated.h"

#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/app.h"
#include "cli/command.h"
#include "cli/compare.h"
#include "cli/emit.h"
#include "cli/errors.h"
#include "lab/suggest.h"
#include "lab/recipe_check.h"
#include "lab/run.h"
#include "lab/catalog.h"

namespace eb::cli {

using nlohmann::json;

std::vector<Recipe> recipes() {
    std::vector<Recipe> out;
    for (const auto& [file, text] : recipe_files()) out.push_back(parse_recipe(text, file));
    return out;
}

uint32_t max_smp(const Recipe& r, const std::string& common_smp) {
    auto number = [](const std::string& v) -> uint32_t {
        try {
            return uint32_t(std::stoul(v));
        } catch (const std::exception&) {
            return 1;  // plan_config rejects it before anything runs
        }
    };
    uint32_t n = common_smp.empty() ? 1 : number(common_smp);
    for (const auto& t : r.tests)
        n = std::max(n, lab::min_vcpus(t));
    for (const auto& c : r.configs)
        for (size_t i = 0; i < c.args.size(); ++i) {
            const auto& w = c.args[i];
            if (w == "--smp" && i + 1 < c.args.size()) n = std::max(n, number(c.args[i + 1]));
            else if (w.rfind("--smp=", 0) == 0) n = std::max(n, number(w.substr(6)));
        }
    return n;
}

namespace {

const Recipe& find_recipe(const std::vector<Recipe>& all, const std::string& name) {
    std::vector<std::string> names;
    for (const auto& x : all) {
        if (x.name == name) return x;
        names.push_back(x.name);
    }
    auto s = lab::suggest(name, names);
    throw UsageError(fmt::format("unknown recipe '{}'{}; 'exitbench recipe list' shows them", name,
                                 s ? fmt::format(" (did you mean '{}'?)", *s) : ""));
}

std::vector<lab::NeedCheck> check_here(const Recipe& r, const std::string& device, const std::string& smp) {
    auto sys = lab::open_kvm(device);
    return lab::check_needs(r.needs, max_smp(r, smp), lab::probe_recipe_host(sys.supported_cpuid()));
}

std::string check_line(const lab::NeedCheck& c) {
    std::string seen = c.seen.empty() ? "" : fmt::format(" [{}]", c.seen);
    if (c.unmet) return fmt::format("  unmet  {}: {}{}\n", c.need, *c.unmet, seen);
    return fmt::format("  met    {}: {}{}\n", c.need, c.what, seen);
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

int cmd_recipe_show(const std::string& device, const std::string& name) {
    auto all = recipes();
    const auto& r = find_recipe(all, name);
    std::string out = fmt::format("recipe {}\n\nquestion: {}\n", r.name, r.question);
    if (!r.seed.empty()) out += fmt::format("\nseed: {}\n", r.seed);
    for (const auto& f : r.figures) out += fmt::format("  {}\n", f);
    out += fmt::format("\ntests: {}\nconfigurations (run here, interleaved):\n", fmt::join(r.tests, ", "));
    for (const auto& c : r.configs) out += fmt::format("  '{}': {}\n", c.label, fmt::join(c.args, " "));
    out += "\npreconditions:\n";
    try {
        for (const auto& c : check_here(r, device, "")) out += check_line(c);
    } catch (const std::exception& e) {
        for (const auto& n : r.needs)
            out += fmt::format("  {}: {}\n", n, lab::need_description(n).value_or("unknown precondition"));
        out += fmt::format("  (not checked on this host: {})\n", e.what());
    }
    if (!r.manual.empty()) out += "\nmanual steps left:\n";
    for (const auto& m : r.manual) out += fmt::format("  - {}\n", m);
    fmt::print("{}", out);
    return kOk;
}

int cmd_recipe_run(const std::string& device, const std::string& name, const CompareArgs& opts,
                   const std::atomic<bool>& interrupt) {
    auto all = recipes();
    const auto& r = find_recipe(all, name);
    if (opts.common.emulated)  // the whole recipe, its precondition checks too, against the guest's kvm_amd
        return relay_emulated(opts.common.argv, {"recipe", opts.common.kernel, opts.common.json, opts.common.format,
                                                 !opts.common.no_save, any_export(opts.common.exports)}, interrupt);
    // A recipe is a ready-made `compare`: its configurations run interleaved.
    // (The options that would override them do not exist on `recipe run`.)
    CompareArgs c = opts;
    c.common.tests = r.tests;
    for (const auto& cfg : r.configs) c.preset.emplace_back(cfg.label, cfg.args);
    // Its outputs are checked before its header prints: a bad --format is one line.
    plan_outputs(opts.common.format, opts.common.exports, opts.common.json, report::Subject::Compare);
    // Above a report for people; on stderr where stdout is for a parser (JSON, KTAP, JUnit, ...).
    const auto& f = opts.common.format;
    FILE* out = f == "table" || f == "text" || f == "markdown" ? stdout : stderr;
    fmt::print(out, "recipe {}: {}\n", r.name, r.question);
    if (!r.seed.empty()) fmt::print(out, "seed: {}\n", r.seed);
    auto checks = check_here(r, device, opts.common.smp);
    std::vector<std::string> unmet;
    fmt::print(out, "preconditions:\n");
    for (const auto& k : checks) {
        fmt::print(out, "{}", check_line(k));
        if (k.unmet) unmet.push_back(*k.unmet);
    }
    // Unanswerable already: one round still reads each configuration's knobs back.
    if (!unmet.empty() && c.rounds.empty() && c.time_budget.empty()) {
        c.rounds = "1";
        fmt::print(out, "a precondition is unmet: one round runs, to read each configuration's knobs back; no verdict\n");
    }
    c.recipe_unmet = unmet;
    std::cout << std::flush;
    fflush(out);
    return cmd_compare(device, c, interrupt);
}

class RecipeCommand : public Command {
public:
    explicit RecipeCommand(CLI::App& root)
        : Command(root.add_subcommand("recipe", "known experiments (BHI SPEC_CTRL, EFER switching, IPI paths) as "
                                                "ready comparisons")) {
        app_->require_subcommand(1);
        list_ = app_->add_subcommand("list", "list the recipes and the question each answers");
        list_->allow_extras(false);
        show_ = app_->add_subcommand("show", "one recipe: its question, the seed's figures, configurations, "
                                             "preconditions (checked here) and the manual steps left");
        show_->add_option("name", name_, "the recipe (see 'recipe list')")->required();
        run_ = app_->add_subcommand("run", "run one recipe: its configurations compared, interleaved");
        run_->add_option("name", name_, "the recipe (see 'recipe list')")->required();
        add_compare_options(*run_, args_);
        run_->add_option("--db", args_.db, "save the configurations' runs to this history database");
        add_save_options(*run_, args_);
        add_export_options(*run_, args_.common.exports, report::Subject::Compare, &args_.common.format);
        // A recipe brings its own tests and configurations: hide what cannot apply.
        for (const char* name : {"tests", "--a", "--b", "--config", "--vs"}) run_->remove_option(run_->get_option(name));
    }
    int run(const Context& ctx) override {
        if (*show_) return cmd_recipe_show(ctx.device, name_);
        if (!*run_) return cmd_recipe_list();
        args_.common.argv = ctx.argv;
        return cmd_recipe_run(ctx.device, name_, args_, ctx.interrupted);
    }
    bool polls() const override { return run_->parsed(); }
    std::string stdout_format() const override { return run_->parsed() ? args_.common.format : ""; }

private:
    CLI::App *list_, *show_, *run_;
    std::string name_;
    CompareArgs args_;
};

} // namespace

std::unique_ptr<Command> recipe_command(CLI::App& root) { return std::make_unique<RecipeCommand>(root); }

} // namespace eb::cli
