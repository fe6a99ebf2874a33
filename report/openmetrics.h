// Building blocks of the metrics exporter, exposed for its tests.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace eb::report {

using Labels = std::vector<std::pair<std::string, std::string>>;

// A label value with \, " and newline escaped as the exposition format says;
// other control bytes and non-ASCII bytes become '?', so the file stays valid UTF-8.
std::string metric_label_value(std::string_view s);

class Metrics {
public:
    void family(const std::string& name, const char* type, const std::string& help);
    // A non-finite value is left out: an unknown figure is absent, not NaN.
    void sample(const std::string& name, const Labels& labels, double value);
    const std::string& text() const { return text_; }

private:
    std::string text_;
};

} // namespace eb::report
