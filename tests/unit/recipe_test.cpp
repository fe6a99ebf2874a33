#include <gtest/gtest.h>

#include "cli/recipe.h"
#include "lab/recipe_check.h"
#include "suite/registry.h"

using namespace eb;

TEST(Recipes, EverySeedExperimentIsShippedAndValid) {
    std::vector<std::string> names;
    for (const auto& r : cli::recipes()) {
        names.push_back(r.name);
        EXPECT_FALSE(r.question.empty()) << r.name;
        // The seed's own figures, what it needs, and what is left to do by hand.
        EXPECT_FALSE(r.figures.empty()) << r.name;
        EXPECT_FALSE(r.needs.empty()) << r.name;
        EXPECT_FALSE(r.manual.empty()) << r.name;
        auto known = lab::known_needs();
        for (const auto& n : r.needs) EXPECT_NE(std::find(known.begin(), known.end(), n), known.end()) << r.name << ": " << n;
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

TEST(Recipes, SmpOfTheConfigurationsAndTheTests) {
    cli::Recipe r;
    r.tests = {"ipi"};  // its minimum is 2 vCPUs
    r.configs = {{"a", {"--smp", "4"}}, {"b", {"--smp=20"}}};
    EXPECT_EQ(cli::max_smp(r, ""), 20u);
    r.configs.clear();
    EXPECT_EQ(cli::max_smp(r, ""), 2u);
    EXPECT_EQ(cli::max_smp(r, "8"), 8u);
    // The seeds' experiments ask for what they ran with.
    for (const auto& x : cli::recipes())
        if (x.name == "exiting-guest-mode") {
            EXPECT_EQ(cli::max_smp(x, ""), 20u);
        }
}

TEST(Recipes, MalformedRecipeNamesItsFile) {
    try {
        cli::parse_recipe(R"({"name": "x", "tests": []})", "x.json");
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("recipe x.json"), std::string::npos);
    }
}
