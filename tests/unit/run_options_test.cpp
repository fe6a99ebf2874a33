// The run-option table (cli/run_options.h) walked row by row: each row
// parses, changes the plan, survives the words a calibration passes to its
// child runs, the words a comparison's advice prints and the result JSON,
// and every command that cannot honour it refuses it.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "cli/emulated.h"

#include "cli/calibrate.h"
#include "cli/compare.h"
#include "cli/help.h"
#include "cli/run.h"
#include "result/json.h"
#include "suite/calibration.h"
#include "tests/temp_dir.h"
#include "tests/unit/sample_report.h"

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
