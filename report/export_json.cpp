// JSON of every subject: the schemas exitbench-run and exitbench-compare, and
// the profile analysis. Written exactly as --json always wrote them.
#include "report/compare.h"
#include "report/exporter.h"
#include "report/json.h"

namespace eb::report {

namespace {
class Json : public Exporter {
public:
    std::string render(const suite::RunReport& r) const override { return to_json(r).dump(2) + "\n"; }
    std::string render(const Comparison& c) const override { return comparison_json(c.report).dump(2) + "\n"; }
    std::string render(const profile::Report& p) const override { return profile::to_json(p).dump(2) + "\n"; }
};
} // namespace

std::unique_ptr<Exporter> json_exporter() { return std::make_unique<Json>(); }

} // namespace eb::report
