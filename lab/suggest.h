#pragma once
#include <optional>
#include <string>
#include <vector>

namespace eb::lab {
// The candidate closest to `word` by edit distance, if close enough to be a typo.
std::optional<std::string> suggest(const std::string& word, const std::vector<std::string>& candidates);
}
