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

std::vector<int> parse_cpu_list(const std::string& opt, const std::string& v) {
    std::vector<int> out;
    size_t pos = 0;
    auto bad = [&] {
        return std::invalid_argument(opt + " needs CPU numbers such as 0,1 or 2-5, not '" + v + "'");
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
