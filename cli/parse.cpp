#include "cli/parse.h"
#include "sys/error.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <stdexcept>

namespace eb::cli {

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

// Length of the decimal number at the start of v: digits, an optional
// fraction and exponent. No sign, space, hex, "inf" or "nan", which strtod
// would take.
size_t number_prefix(const std::string& v) {
    size_t i = 0, digits = 0;
    while (i < v.size() && digit(v[i])) ++i, ++digits;
    if (i < v.size() && v[i] == '.')
        for (++i; i < v.size() && digit(v[i]); ++i) ++digits;
    if (digits == 0) return 0;
    if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
        size_t j = i + 1;
        if (j < v.size() && (v[j] == '+' || v[j] == '-')) ++j;
        if (j < v.size() && digit(v[j])) {
            while (j < v.size() && digit(v[j])) ++j;
            i = j;
        }
    }
    return i;
}

} // namespace

uint64_t parse_count(const std::string& opt, const std::string& v, uint64_t lo, uint64_t hi) {
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    bool digits_only = !v.empty() && digit(v[0]) && end == v.data() + v.size();
    if (!digits_only || ec != std::errc() || n < lo || n > hi)
        throw InputError(
            hi == UINT64_MAX ? fmt::format("{} needs a whole number of at least {}, not '{}'", opt, lo, v)
                             : fmt::format("{} needs a whole number from {} to {}, not '{}'", opt, lo, hi, v));
    return n;
}

uint64_t parse_positive(const std::string& opt, const std::string& v) { return parse_count(opt, v, 1, UINT64_MAX); }

std::string duration_text(double s) {
    if (s >= 1) return fmt::format("{:g}s", s);
    if (s >= 1e-3) return fmt::format("{:g}ms", s * 1e3);
    return fmt::format("{:g}us", s * 1e6);
}

double parse_duration(const std::string& opt, const std::string& v, double max_s, double min_s) {
    size_t n = number_prefix(v);
    std::string unit = v.substr(n);
    double scale = unit == "" || unit == "s" ? 1 : unit == "ms" ? 1e-3 : unit == "us" ? 1e-6 : -1;
    double x = n ? std::strtod(v.substr(0, n).c_str(), nullptr) * scale : 0;
    if (n == 0 || scale < 0 || !std::isfinite(x) || x < min_s * (1 - 1e-12) || x > max_s)
        throw InputError(fmt::format("{} needs a duration from {} to {} such as 20ms, 0.5s or 250us, "
                                                "not '{}'",
                                                opt, duration_text(min_s), duration_text(max_s), v));
    return x;
}

std::vector<int> parse_cpu_list(const std::string& opt, const std::string& v) {
    std::vector<int> out;
    size_t pos = 0;
    auto bad = [&] {
        return InputError(opt + " needs CPU numbers such as 0,1 or 2-5, not '" + v + "'");
    };
    while (pos <= v.size()) {
        size_t end = v.find(',', pos);
        std::string item = v.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        size_t dash = item.find('-');
        auto num = [&](const std::string& x) {
            if (x.empty() || x.size() > 6 || x.find_first_not_of("0123456789") != std::string::npos) throw bad();
            return std::stoi(x);
        };
        int lo = num(item.substr(0, dash)), hi = dash == std::string::npos ? lo : num(item.substr(dash + 1));
        if (hi < lo || hi - lo > 4096) throw bad();
        for (int c = lo; c <= hi; ++c) out.push_back(c);
        if (end == std::string::npos) break;
        pos = end + 1;
    }
    return out;
}

} // namespace eb::cli

namespace eb::cli {

double parse_number(const std::string& opt, const std::string& v, double lo, double hi) {
    size_t n = number_prefix(v);
    double x = n == v.size() && n > 0 ? std::strtod(v.c_str(), nullptr) : std::nan("");
    if (!(x >= lo && x <= hi))
        throw InputError(fmt::format("{} needs a number in [{:g}, {:g}], not '{}'", opt, lo, hi, v));
    return x;
}

} // namespace eb::cli
