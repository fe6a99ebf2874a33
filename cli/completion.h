// Shell completion scripts, generated from the command tree itself, so a new
// command or option completes without anyone editing a script.
#pragma once
#include <string>
#include <string_view>

namespace eb::cli {

// The completion script for "bash" or "zsh"; throws UsageError for any other.
std::string completion_script(std::string_view shell);

} // namespace eb::cli
