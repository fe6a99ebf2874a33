// Strict parsers for option values; each throws std::invalid_argument with a
// message that names the option.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace eb::cli {

uint64_t parse_positive(const std::string& opt, const std::string& v);
// "20ms", "0.5s", "250us", or plain seconds; must be > 0.
double parse_duration(const std::string& opt, const std::string& v);
// "0,1" or "2-5" or a mix: host CPU numbers, in order.
std::vector<int> parse_cpu_list(const std::string& opt, const std::string& v);

} // namespace eb::cli
