#include "report/grid.h"

#include <algorithm>
#include <regex>

#include "report/sanitize.h"

namespace eb::report {

namespace {

// A plain decimal number, as num() writes them: -12.5, 3e-05.
bool is_number(std::string_view s) {
    static const std::regex number(R"([+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)");
    return std::regex_match(s.begin(), s.end(), number);
}

} // namespace

std::string csv_field(std::string_view s) {
    // A spreadsheet runs a cell starting = + - @ (or tab, CR) as a formula:
    // a quote first makes it text. Numbers, negative ones too, stay numbers.
    std::string guarded;
    if (!s.empty() && std::string_view("=+-@\t\r").find(s[0]) != std::string_view::npos && !is_number(s)) {
        guarded = "'" + std::string(s);
        s = guarded;
    }
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

namespace {
std::string csv_line(const std::vector<std::string>& cells) {
    std::string out;
    for (size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + csv_field(cells[i]);
    return out + "\r\n";
}
} // namespace

std::string to_csv(const Grid& g) {
    std::string out = csv_line(g.columns);
    for (const auto& r : g.rows) out += csv_line(r);
    return out;
}

std::string markdown_cell(std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        switch (c) {
        case '|': out += "\\|"; break;
        case '\\': out += "\\\\"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '&': out += "&amp;"; break;
        case '\r': break;
        case '\n': out += "<br>"; break;
        default: out += c;
        }
    }
    return out;
}

std::string to_markdown(const Grid& g) {
    auto line = [](const std::vector<std::string>& cells) {
        std::string out = "|";
        for (const auto& c : cells) out += " " + markdown_cell(c) + " |";
        return out + "\n";
    };
    std::string out = line(g.columns) + "|";
    for (size_t i = 0; i < g.columns.size(); ++i)
        out += i < g.numeric.size() && g.numeric[i] ? "---:|" : "---|";
    out += "\n";
    for (const auto& r : g.rows) out += line(r);
    return out;
}

std::string to_text(const Grid& g) {
    auto shown = [&](const std::vector<std::string>& r) {
        std::vector<std::string> out;
        for (const auto& c : r) out.push_back(printable(c));
        return out;
    };
    std::vector<std::vector<std::string>> all{shown(g.columns)};
    for (const auto& r : g.rows) all.push_back(shown(r));
    std::vector<size_t> w(g.columns.size(), 0);
    for (const auto& r : all)
        for (size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
    std::string out;
    for (const auto& r : all) {
        std::string line;
        for (size_t i = 0; i < r.size() && i < w.size(); ++i) {
            bool right = i < g.numeric.size() && g.numeric[i];
            std::string pad(w[i] - r[i].size(), ' ');
            line += (i ? "  " : "") + (right ? pad + r[i] : r[i] + (i + 1 < r.size() ? pad : ""));
        }
        line.erase(line.find_last_not_of(' ') + 1);  // empty last cells leave no trailing blanks
        out += line + "\n";
    }
    return out;
}

} // namespace eb::report
