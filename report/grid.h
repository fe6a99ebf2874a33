// A result as rows and columns, and the three ways it is written out as a
// table: CSV (RFC 4180), a GitHub markdown table, and plain fixed width.
// Each subject's columns are defined once (report/grids.cpp); these only lay out.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace eb::report {

struct Grid {
    std::vector<std::string> columns;            // keys: CSV, markdown, text
    std::vector<bool> numeric;                  // per column: right-aligned in text and markdown
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> titles;            // the columns as a person reads them (HTML); else the keys
};

// A field quoted when it holds a comma, quote, CR or LF; quotes doubled. Text
// starting = + - @ (tab, CR) gets a leading ' so a spreadsheet does not run it.
std::string csv_field(std::string_view s);
// Header row, then one line per row, CRLF-terminated as RFC 4180 says.
std::string to_csv(const Grid& g);

// A cell of a GitHub table: `|` and `\` escaped, newlines as <br>, and < > &
// as entities so a value cannot open an HTML tag.
std::string markdown_cell(std::string_view s);
std::string to_markdown(const Grid& g);

// Columns padded to their widest cell; control bytes shown as \xNN.
std::string to_text(const Grid& g);

} // namespace eb::report
