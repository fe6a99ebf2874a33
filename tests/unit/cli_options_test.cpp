// What the command line parses: values (durations, counts, CPU lists), the
// run-option table row by row, and the recipes' configurations as `run`
// parses them.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "cli/calibrate.h"
#include "cli/compare.h"
#include "cli/emulated.h"
#include "cli/errors.h"
#include "cli/help.h"
#include "cli/parse.h"
#include "cli/recipe.h"
#include "cli/run.h"
#include "lab/recipe_check.h"
#include "result/json.h"
#include "suite/calibration.h"
#include "suite/registry.h"
#include "sys/error.h"
#include "tests/temp_dir.h"
#include "tests/unit/sample_report.h"

// Values: counts, durations, CPU lists.
using namespace eb::cli;

TEST(Parse, PositiveIntegers) {
    EXPECT_EQ(parse_positive("--iterations", "64"), 64u);
    for (const char* bad : {"0", "-1", "abc", "", "12x", "99999999999999999999999"})
        EXPECT_THROW(parse_positive("--iterations", bad), eb::InputError) << bad;
}

TEST(Parse, CountsAreStrictAndRanged) {
    EXPECT_EQ(parse_count("--vcpu", "0", 0, UINT32_MAX), 0u);
    EXPECT_EQ(parse_count("--vcpu", "4294967295", 0, UINT32_MAX), 4294967295u);
    for (const char* bad : {" -1", "-1", "+1", " 1", "1 ", "4294967296", "0x10", "1e3", "18446744073709551616"})
        EXPECT_THROW(parse_count("--vcpu", bad, 0, UINT32_MAX), eb::InputError) << bad;
    try {
        parse_count("--repeats", "2000000", 1, 1u << 20);
        FAIL();
    } catch (const eb::InputError& e) {
        EXPECT_STREQ(e.what(), "--repeats needs a whole number from 1 to 1048576, not '2000000'");
    }
}

TEST(Parse, DurationsAreBounded) {
    EXPECT_DOUBLE_EQ(parse_duration("--watchdog", "3600s", 3600), 3600);
    EXPECT_DOUBLE_EQ(parse_duration("--watchdog", "1e3ms", 3600), 1);
    EXPECT_DOUBLE_EQ(parse_duration("--watchdog", "1us", 3600), 1e-6);
    for (const char* bad : {"1e10", "3601", "0.5us", " 5", "+5", "5 ms", "0x10", "infinity", "1e400", ".", "1e"})
        EXPECT_THROW(parse_duration("--watchdog", bad, 3600), eb::InputError) << bad;
    try {
        parse_duration("--watchdog", "1e10", 3600, 1e-3);
        FAIL();
    } catch (const eb::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--watchdog needs a duration from 1ms to 3600s"), std::string::npos)
            << e.what();
    }
}

TEST(Parse, Durations) {
    EXPECT_DOUBLE_EQ(parse_duration("--time-goal", "20ms"), 0.02);
    EXPECT_DOUBLE_EQ(parse_duration("--time-goal", "2"), 2);
    EXPECT_DOUBLE_EQ(parse_duration("--time-goal", "0.5s"), 0.5);
    EXPECT_DOUBLE_EQ(parse_duration("--time-goal", "250us"), 250e-6);
    for (const char* bad : {"0", "-3ms", "fast", "", "10min", "nan", "inf"})
        EXPECT_THROW(parse_duration("--time-goal", bad), eb::InputError) << bad;
}

// Recipes: every configuration parses as run would.
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

// The run-option table (cli/run_options.h) walked row by row: each row
// parses, changes the plan, survives the words a calibration passes to its
// child runs, the words a comparison's advice prints and the result JSON,
// and every command that cannot honour it refuses it.
using namespace eb;

namespace {

std::vector<std::string> row_words(const cli::RunOption& o, const std::string& scratch) {
    std::string value = std::holds_alternative<std::string cli::RunArgs::*>(o.field) ||
                                std::holds_alternative<std::vector<std::string> cli::RunArgs::*>(o.field)
                            ? (std::string(o.name) == "--profile-out" ? scratch : o.example)
                            : "";
    if (value.empty()) return {o.name};
    return {o.name, value};
}

void parse_into(CLI::App& app, const std::vector<std::string>& words) {
    std::vector<std::string> rev(words.rbegin(), words.rend());
    app.parse(rev);
}

lab::RunPlan plan_of(const std::vector<std::string>& words, unsigned scopes = cli::kRun) {
    cli::RunArgs a;
    CLI::App app;
    cli::add_run_options(app, a, scopes);
    parse_into(app, words);
    return cli::plan_run(a);
}

// Everything a row can change: the settings the result keeps (and the key a
// calibration is borrowed by), and what the plan keeps beside them.
std::string fingerprint(const lab::RunPlan& p) {
    const auto& s = p.settings;
    return fmt::format("{} | sessions={} repeats={} watchdog={:g} trace_verify={} retry_hung={} invd={} out={}",
                       suite::settings_key(s), s.sessions, s.repeats, s.watchdog_s, s.trace_verify, s.retry_hung,
                       p.allow_invd, p.profile_out);
}

} // namespace

TEST(RunOptions, EveryRowIsHonouredAndSurvivesEveryRoundTrip) {
    test::TempDir tmp;
    auto defaults = fingerprint(plan_of({}));
    for (const auto& o : cli::run_options_table()) {
        SCOPED_TRACE(o.name);
        if (o.scopes & cli::kWhere) continue;  // where the command runs, not what it measures: below
        auto words = row_words(o, tmp.path("trace"));
        cli::RunArgs a;
        CLI::App app;
        cli::add_run_options(app, a);
        parse_into(app, words);
        ASSERT_TRUE(cli::given(o, a));
        auto plan = cli::plan_run(a);
        EXPECT_NE(fingerprint(plan), defaults) << "the row changes nothing in the plan";

        // The words another `exitbench run` is given (calibrate's child runs).
        auto again = cli::run_words(a, o.scopes);
        EXPECT_EQ(fingerprint(plan_of(again)), fingerprint(plan)) << fmt::format("{}", fmt::join(again, " "));

        // The saved result and the options the advice prints keep what the
        // calibration key holds.
        auto r = sample_report();
        r.settings = plan.settings;
        auto back = result::from_json(result::to_json(r)).settings;
        EXPECT_EQ(suite::settings_key(back), suite::settings_key(plan.settings));
        auto printed = cli::split_args(suite::run_options(plan.settings));
        EXPECT_EQ(suite::settings_key(plan_of(printed).settings), suite::settings_key(plan.settings))
            << suite::run_options(plan.settings);

        // Help and completion name the value as the row does.
        EXPECT_EQ(cli::placeholder(std::string(o.name).substr(2)), o.placeholder);
    }
}

TEST(RunOptions, ASavedCompareRefusesEveryRow) {
    test::TempDir tmp;
    for (const auto& o : cli::run_options_table()) {
        SCOPED_TRACE(o.name);
        cli::CompareArgs c;
        CLI::App app;
        cli::add_compare_options(app, c);
        parse_into(app, row_words(o, tmp.path("trace")));
        try {
            cli::reject_run_options(c);
            ADD_FAILURE() << "accepted";
        } catch (const cli::UsageError& e) {
            EXPECT_NE(std::string(e.what()).find(o.name), std::string::npos) << e.what();
        }
    }
    for (std::vector<std::string> w : {std::vector<std::string>{"--rounds", "3"}, {"--precision", "2"},
                                       {"--time-budget", "1s"}, {"--seed", "4"}}) {
        cli::CompareArgs c;
        CLI::App app;
        cli::add_compare_options(app, c);
        parse_into(app, w);
        EXPECT_THROW(cli::reject_run_options(c), cli::UsageError) << w[0];
    }
}

TEST(RunOptions, ALiveConfigurationRefusesWhatARoundCannotHonour) {
    for (const auto& o : cli::run_options_table()) {
        SCOPED_TRACE(o.name);
        if (o.scopes & cli::kWhere) continue;  // the whole command's: a configuration does not take it at all
        if (o.scopes & cli::kLive) {
            EXPECT_EQ(o.not_live, nullptr);
            continue;
        }
        ASSERT_NE(o.not_live, nullptr) << "a row a live compare refuses says why";
        try {
            cli::plan_config("A", row_words(o, ""), {});
            ADD_FAILURE() << "accepted";
        } catch (const cli::UsageError& e) {
            EXPECT_NE(std::string(e.what()).find(o.not_live), std::string::npos) << e.what();
        }
    }
}

TEST(RunOptions, CalibrateTakesItsRowsAndPassesThemOn) {
    test::TempDir tmp;
    for (const auto& o : cli::run_options_table()) {
        SCOPED_TRACE(o.name);
        CLI::App root;
        cli::CalibrateArgs args;
        auto* cmd = cli::add_calibrate_command(root, args);
        bool registered = cmd->get_option_no_throw(o.name) != nullptr;
        EXPECT_EQ(registered, (o.scopes & cli::kCalibrate) != 0);
        if (!registered) continue;
        std::vector<std::string> words{"calibrate"};
        auto w = row_words(o, tmp.path("trace"));
        words.insert(words.end(), w.begin(), w.end());
        parse_into(root, words);
        auto passed = cli::run_words(args.common, cli::kCalibrate);
        ASSERT_FALSE(passed.empty());
        EXPECT_EQ(passed[0].substr(0, std::string(o.name).size()), o.name);
    }
}

// The rows of where a command runs (--emulated, --kernel) parse and are set,
// change nothing of what is measured, and never reach a child run's words or
// a live configuration.
TEST(RunOptions, WhereRowsAreTheCommandsNotTheMeasurements) {
    test::TempDir tmp;
    auto defaults = fingerprint(plan_of({}));
    size_t rows = 0;
    for (const auto& o : cli::run_options_table()) {
        if (!(o.scopes & cli::kWhere)) continue;
        SCOPED_TRACE(o.name);
        ++rows;
        cli::RunArgs a;
        CLI::App app;
        cli::add_run_options(app, a, cli::kRun | cli::kWhere);
        parse_into(app, row_words(o, tmp.path("trace")));
        ASSERT_TRUE(cli::given(o, a));
        EXPECT_EQ(fingerprint(cli::plan_run(a)), defaults);
        EXPECT_TRUE(cli::run_words(a, cli::kCalibrate | cli::kLive).empty());
        EXPECT_FALSE(o.scopes & cli::kLive);
        EXPECT_NE(o.not_live, nullptr);
        EXPECT_EQ(cli::placeholder(std::string(o.name).substr(2)), o.placeholder);
    }
    EXPECT_EQ(rows, 2u);
}

// --emulated's guest gets the command's own words, less what the host keeps.
TEST(Emulated, GuestWordsDropWhatTheHostKeeps) {
    std::vector<std::string> argv{"/usr/bin/exitbench", "--device", "/dev/kvm", "run", "cpuid", "--emulated",
                                  "--kernel", "/boot/k", "--json=x.json", "--db", "h.db", "--no-save", "--label",
                                  "L", "--export-csv", "c.csv", "--format", "json", "-n", "64"};
    EXPECT_EQ(cli::guest_words(argv, "run", true), (std::vector<std::string>{"run", "cpuid", "-n", "64"}));
    EXPECT_EQ(cli::guest_words(argv, "run", false),
              (std::vector<std::string>{"run", "cpuid", "--format", "json", "-n", "64"}));
    std::vector<std::string> recipe{"exitbench", "recipe", "run", "efer-switch", "--emulated", "--rounds", "4"};
    EXPECT_EQ(cli::guest_words(recipe, "recipe", false),
              (std::vector<std::string>{"recipe", "run", "efer-switch", "--rounds", "4"}));
}

// The calibration advice's run options, parsed back.
// The advice's calibrate command carries the compared runs' options: parsed
// back as `run` would, they give the same settings.
TEST(Calibration, RunOptionsReproduceTheSettings) {
    cli::RunArgs args;
    CLI::App app;
    cli::add_run_options(app, args);
    std::vector<std::string> words{"-n", "200", "--sessions", "2", "-r", "3", "--smp", "2", "--pin", "0,1",
                                   "--apic", "xapic", "--guest-msr", "spec_ctrl=0x401", "--guest-efer", "nx=off",
                                   "--cpuid=-x2apic", "--no-baseline", "--warmup", "2"};
    std::vector<std::string> rev(words.rbegin(), words.rend());
    app.parse(rev);
    auto s = cli::plan_run(args).settings;
    auto again_words = cli::split_args(suite::run_options(s));
    cli::RunArgs again;
    CLI::App app2;
    cli::add_run_options(app2, again);
    std::vector<std::string> rev2(again_words.rbegin(), again_words.rend());
    app2.parse(rev2);
    auto t = cli::plan_run(again).settings;
    EXPECT_EQ(suite::settings_key(t), suite::settings_key(s)) << suite::run_options(s);
    EXPECT_EQ(t.sessions, 2u);
    EXPECT_EQ(t.repeats, 3u);
}
