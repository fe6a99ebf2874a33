#include "report/grid.h"

#include <algorithm>
#include <cctype>

#include "report/sanitize.h"

namespace eb::report {

namespace {

// How many decimal digits S has from position I on.
size_t digits_at(std::string_view s, size_t i) {
    size_t n = 0;
    while (i + n < s.size() && std::isdigit(static_cast<unsigned char>(s[i + n]))) ++n;
    return n;
}

// A plain decimal number, as num() writes them: -12.5, 3e-05, .5, 7.
// (Hand-written: std::regex costs seconds of compile time in every build.)
bool is_number(std::string_view s) {
    size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
    size_t whole = digits_at(s, i);
    i += whole;
    size_t fraction = 0;
    if (i < s.size() && s[i] == '.') {
        fraction = digits_at(s, i + 1);
        i += 1 + fraction;
    }
    if (whole == 0 && fraction == 0) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        i += (i + 1 < s.size() && (s[i + 1] == '+' || s[i + 1] == '-')) ? 2 : 1;
        size_t exponent = digits_at(s, i);
        if (exponent == 0) return false;
        i += exponent;
    }
    return i == s.size();
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
