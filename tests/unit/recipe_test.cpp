#include <gtest/gtest.h>

#include "cli/recipe.h"
#include "suite/registry.h"

using namespace eb;

TEST(Recipes, EverySeedExperimentIsShippedAndValid) {
    std::vector<std::string> names;
    for (const auto& r : cli::recipes()) {
        names.push_back(r.name);
        EXPECT_FALSE(r.question.empty()) << r.name;
        for (const auto& t : r.tests) EXPECT_NE(suite::find_test(t), nullptr) << r.name << ": " << t;
        // Each configuration's options must plan cleanly, as `recipe run` requires.
        for (const auto& c : r.configs) {
            cli::RunArgs a;
            CLI::App parser;
            cli::add_run_options(parser, a);
            std::vector<std::string> argv(c.args.rbegin(), c.args.rend());
            EXPECT_NO_THROW(parser.parse(argv)) << r.name << " / " << c.label;
            a.tests = r.tests;
            EXPECT_NO_THROW(cli::plan_run(a)) << r.name << " / " << c.label;
        }
    }
    for (const char* want : {"bhi-spec-ctrl", "ipi-fastpath", "exiting-guest-mode", "efer-switch"})
        EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
}

TEST(Recipes, MalformedRecipeNamesItsFile) {
    try {
        cli::parse_recipe(R"({"name": "x", "tests": []})", "x.json");
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("recipe x.json"), std::string::npos);
    }
}
