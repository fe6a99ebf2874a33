// vmexit.flat's output: "name cycles" (truncated mean of the last batch there;
// the median over repeats here) and "name (skipped)". Failed tests print
// nothing on stdout, as a crashed vmexit.flat would.
#include <fmt/format.h>

#include "report/exporter.h"
#include "stats/summary.h"

namespace eb::report {

namespace {
class Kut : public Exporter {
public:
    std::string render(const suite::RunReport& r) const override {
        std::string out;
        for (const auto& t : r.results) {
            if (t.status == suite::Status::Skipped)
                out += fmt::format("{} (skipped)\n", t.name);
            else if (!suite::is_failure(t.status) && t.status != suite::Status::Interrupted &&
                     suite::measured(t))
                out += fmt::format("{} {}\n", t.name, static_cast<long long>(suite::headline(t)->cycles));
        }
        return out;
    }
};
} // namespace

std::unique_ptr<Exporter> kut_exporter() { return std::make_unique<Kut>(); }

} // namespace eb::report
