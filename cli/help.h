// What --help shows beyond each option's description: typed placeholders
// (N, DURATION, FILE) instead of CLI11's TEXT, and a few examples per command.
#pragma once
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace eb::cli {

// Sets every option's placeholder and every command's examples, walking the
// whole command tree. Call once, after every option exists.
void finish_help(CLI::App& root);

// The examples `--help` of the command at `path` ("run", "profile report")
// shows, each a full command line starting with "exitbench".
const std::vector<std::string>& help_examples(const std::string& path);

// The placeholder an option's value gets in --help; "" for an unknown name.
std::string placeholder(const std::string& option_name);
// A command's words below the root ("profile record"); "" for the root.
std::string path_of(const CLI::App& app);

} // namespace eb::cli
