// --help of every command: typed placeholders and examples that really parse.
#include <CLI/CLI.hpp>
#include <gtest/gtest.h>
#include <map>
#include <sstream>

#include "cli/app.h"
#include "cli/completion.h"
#include "cli/errors.h"
#include "cli/help.h"
#include "cli/kernel_ab.h"
#include "cli/progress.h"

using namespace eb;

namespace {

// An example's words after "exitbench", up to a shell pipe or redirection.
std::vector<std::string> words_of(const std::string& example) {
    std::istringstream in(example);
    std::vector<std::string> words;
    std::string w, quoted;
    while (in >> w) {
        if (w == "|" || w == ">") break;
        if (!quoted.empty() || w.front() == '\'') {  // 'a b' is one word, as a shell reads it
            quoted += (quoted.empty() ? "" : " ") + w;
            if (w.back() != '\'' || quoted.size() == 1) continue;
            w = quoted.substr(1, quoted.size() - 2);
            quoted.clear();
        }
        words.push_back(w);
    }
    if (!words.empty() && words.front() == "sudo") words.erase(words.begin());
    if (!words.empty() && words.front() == "exitbench") words.erase(words.begin());
    return words;
}

} // namespace

TEST(Help, EveryValueHasATypedPlaceholder) {
    cli::visit_commands([](const CLI::App& app) {
        for (const CLI::Option* o : app.get_options()) {
            if (o->get_expected_max() == 0) continue;
            EXPECT_NE(o->get_type_name(), "TEXT") << cli::path_of(app) << " " << o->get_name();
            EXPECT_FALSE(o->get_type_name().empty()) << cli::path_of(app) << " " << o->get_name();
        }
    });
}

TEST(Help, EveryCommandShowsTwoToFourExamplesThatParse) {
    int commands = 0;
    cli::visit_commands([&](const CLI::App& app) {
        ++commands;
        const auto& ex = cli::help_examples(cli::path_of(app));
        EXPECT_GE(ex.size(), 2u) << "'" << cli::path_of(app) << "'";
        EXPECT_LE(ex.size(), 4u) << "'" << cli::path_of(app) << "'";
        EXPECT_NE(app.get_footer().find("Examples:"), std::string::npos) << cli::path_of(app);
        for (const auto& e : ex) {
            auto words = words_of(e);
            EXPECT_EQ(cli::parse_only(words), 0) << e;
        }
    });
    EXPECT_GE(commands, 15);
}

// The man pages' EXIT STATUS, ENVIRONMENT and FILES are made from --help
// (packaging/manpages.sh): every code the enums define, every variable read.
TEST(Help, ExitStatusEnvironmentAndFilesCarryWhatTheCodeDefines) {
    std::map<std::string, std::string> footer;
    cli::visit_commands([&](const CLI::App& app) { footer[cli::path_of(app)] = app.get_footer(); });
    auto has_row = [](const std::string& text, int code) {
        return text.find("\n  " + std::to_string(code) + " ") != std::string::npos;
    };
    for (const char* path : {"", "compare", "bisect-step"})
        EXPECT_NE(footer[path].find("\nExit status:\n"), std::string::npos) << "'" << path << "'";
    for (int code : {cli::kOk, cli::kTestFailed, cli::kUsage, cli::kHost, cli::kNotTestable, cli::kNotSaved,
                     cli::kInternal, cli::kInterrupted})
        EXPECT_TRUE(has_row(footer[""], code)) << code;
    for (int code : {cli::kBisectGood, cli::kBisectBad, cli::kBisectSkip, cli::kBisectAbort})
        EXPECT_TRUE(has_row(footer["bisect-step"], code)) << code;
    EXPECT_FALSE(has_row(footer["bisect-step"], cli::kInternal));  // not the root's table
    for (const char* var : {"XDG_DATA_HOME", "HOME", "TMPDIR", "PATH", "EXITBENCH_MASK_CAPS"})  // grep getenv
        EXPECT_NE(footer[""].find("\n  " + std::string(var)), std::string::npos) << var;
    EXPECT_NE(footer[""].find("\nFiles:\n  /dev/kvm"), std::string::npos);
    EXPECT_NE(footer[""].find("exitbench/history.db"), std::string::npos);
}

// perf-style spelling and root options after the command.
TEST(Help, OptionsUsersAlreadyKnowParse) {
    EXPECT_EQ(cli::parse_only({"list", "--device", "/dev/kvm"}), 0);
    EXPECT_EQ(cli::parse_only({"profile", "report", "-i", "x.trace", "--key", "time"}), 0);
    EXPECT_NE(cli::parse_only({"run", "--no-such-option"}), 0);
    EXPECT_NE(cli::parse_only({"recipe", "run", "efer-switch", "--a", "--smp 2"}), 0);  // not a recipe option
}

TEST(Progress, EtaFollowsThePaceSoFar) {
    EXPECT_EQ(cli::Progress::eta(10, 0, 4), "");  // no pace yet
    EXPECT_EQ(cli::Progress::eta(10, 1, 4), "30 s");
    EXPECT_EQ(cli::Progress::eta(60, 1, 4), "3 min 00 s");
    EXPECT_EQ(cli::Progress::eta(10, 4, 4), "");
    EXPECT_EQ(cli::Progress::duration_text(125.4), "2 min 05 s");
}

// The scripts come from the command tree: every command and option is in them.
TEST(Completion, ScriptsCoverEveryCommandAndOption) {
    auto bash = cli::completion_script("bash");
    auto zsh = cli::completion_script("zsh");
    EXPECT_NE(bash.find("complete -F _exitbench exitbench"), std::string::npos);
    EXPECT_EQ(zsh.rfind("#compdef exitbench", 0), 0u);
    cli::visit_commands([&](const CLI::App& app) {
        std::string arm = "'" + cli::path_of(app) + "')";
        EXPECT_NE(bash.find(arm), std::string::npos) << arm;
        EXPECT_NE(zsh.find(arm), std::string::npos) << arm;
        for (const CLI::Option* o : app.get_options())
            for (const auto& l : o->get_lnames()) {
                EXPECT_NE(bash.find("--" + l), std::string::npos) << cli::path_of(app) << " --" << l;
                EXPECT_NE(zsh.find("--" + l), std::string::npos) << cli::path_of(app) << " --" << l;
            }
    });
    // Test names hold colons, which zsh's _describe would take as a separator.
    EXPECT_NE(zsh.find("mmio-no-eventfd\\:pci-mem"), std::string::npos);
    EXPECT_THROW(cli::completion_script("fish"), cli::UsageError);
}
