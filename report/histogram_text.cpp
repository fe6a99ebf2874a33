#include "report/histogram_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace eb::report {

std::string render_histogram(const stats::Histogram& h, size_t width) {
    size_t bins = h.counts.size();
    if (bins == 0) return "";
    std::vector<double> edges(bins + 1);
    for (size_t i = 0; i <= bins; ++i) {
        double t = double(i) / bins;
        edges[i] = h.log_scale ? std::exp(std::log(h.lo) + t * (std::log(h.hi) - std::log(h.lo)))
                               : h.lo + t * (h.hi - h.lo);
    }
    edges[bins] = h.hi;
    // The fewest significant digits (>= 4) that still tell adjacent edges apart.
    auto fmt = [](double x, int digits) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*g", digits, x);
        return std::string(buf);
    };
    auto distinct = [&](int digits) {
        for (size_t i = 0; i < bins; ++i)
            if (fmt(edges[i], digits) == fmt(edges[i + 1], digits)) return false;
        return true;
    };
    int digits = 4;
    while (h.lo != h.hi && digits < 12 && !distinct(digits)) ++digits;
    std::vector<std::string> ranges, counts;
    size_t rw = 0, cw = 0;
    uint64_t top = *std::max_element(h.counts.begin(), h.counts.end());
    for (size_t i = 0; i < bins; ++i) {
        const char* close = i + 1 < bins ? ")" : "]";  // the last bin includes the maximum
        ranges.push_back("[" + fmt(edges[i], digits) + ", " + fmt(edges[i + 1], digits) + close);
        counts.push_back(std::to_string(h.counts[i]));
        rw = std::max(rw, ranges.back().size());
        cw = std::max(cw, counts.back().size());
    }
    std::string out;
    for (size_t i = 0; i < bins; ++i) {
        size_t bar = top ? size_t(std::llround(double(h.counts[i]) * width / top)) : 0;
        if (h.counts[i] > 0 && bar == 0 && width > 0) bar = 1;  // a non-empty bin stays visible
        out += ranges[i] + std::string(rw - ranges[i].size() + 1, ' ');
        out += std::string(cw - counts[i].size(), ' ') + counts[i];
        out += (bar ? " " + std::string(bar, '#') : "") + "\n";
    }
    return out;
}

} // namespace eb::report
