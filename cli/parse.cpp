#include "cli/parse.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace eb::cli {

uint64_t parse_positive(const std::string& opt, const std::string& v) {
    errno = 0;
    char* end = nullptr;
    unsigned long long n = v.empty() || v[0] == '-' ? 0 : std::strtoull(v.c_str(), &end, 10);
    if (v.empty() || v[0] == '-' || errno || !end || *end || n == 0)
        throw std::invalid_argument(opt + " needs a whole number greater than 0, not '" + v + "'");
    return n;
}

double parse_duration(const std::string& opt, const std::string& v) {
    char* end = nullptr;
    errno = 0;
    double x = v.empty() ? 0 : std::strtod(v.c_str(), &end);
    std::string unit = end ? end : "";
    double scale = unit == "" || unit == "s" ? 1 : unit == "ms" ? 1e-3 : unit == "us" ? 1e-6 : -1;
    if (v.empty() || errno || scale < 0 || !std::isfinite(x) || x <= 0)
        throw std::invalid_argument(opt + " needs a duration greater than 0 such as 20ms, 0.5s or "
                                          "250us, not '" + v + "'");
    return x * scale;
}

} // namespace eb::cli
