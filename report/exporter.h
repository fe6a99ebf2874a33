// One exporter per output format, behind one interface.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "suite/result.h"

namespace eb::report {

class Exporter {
public:
    virtual ~Exporter() = default;
    virtual std::string render(const suite::RunReport& r) const = 0;
};

std::unique_ptr<Exporter> table_exporter();
std::unique_ptr<Exporter> kut_exporter();
std::unique_ptr<Exporter> json_exporter();

// "table", "kut" or "json"; nullptr for anything else.
std::unique_ptr<Exporter> make_exporter(std::string_view format);
std::vector<std::string> format_names();

} // namespace eb::report
