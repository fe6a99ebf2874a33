// Strict parsers for option values: digits (and for durations a decimal
// number with a unit) only, no sign, spaces or wrap-around. Each throws
// InputError with one line that names the option and the allowed
// range.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace eb::cli {

// A whole number in [lo, hi].
uint64_t parse_count(const std::string& opt, const std::string& v, uint64_t lo, uint64_t hi);
// A plain decimal number (digits, a fraction, an exponent) in [lo, hi].
double parse_number(const std::string& opt, const std::string& v, double lo, double hi);
// A whole number > 0 (any size that fits 64 bits).
uint64_t parse_positive(const std::string& opt, const std::string& v);

inline constexpr double kMinDuration = 1e-6;       // 1us, the finest unit
inline constexpr double kMaxDuration = 7 * 86400;  // a week; far from int64 ns overflow (292 years)
// "20ms", "0.5s", "250us", or plain seconds, in [min_s, max_s], in seconds.
double parse_duration(const std::string& opt, const std::string& v, double max_s = kMaxDuration,
                      double min_s = kMinDuration);
// "0,1" or "2-5" or a mix: host CPU numbers, in order.
std::vector<int> parse_cpu_list(const std::string& opt, const std::string& v);

// "250us", "20ms", "3600s": a duration bound as the parser would take it.
std::string duration_text(double s);

} // namespace eb::cli
