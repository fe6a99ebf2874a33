#include "report/exporter.h"

namespace eb::report {

std::unique_ptr<Exporter> make_exporter(std::string_view format) {
    if (format == "table") return table_exporter();
    if (format == "kut") return kut_exporter();
    if (format == "json") return json_exporter();
    return nullptr;
}

std::vector<std::string> format_names() { return {"table", "kut", "json"}; }

} // namespace eb::report
