// Strings read from files (result JSON, traces) reach terminals: an ESC or
// other control byte in, say, cpu_model must not be printed raw. Header-only
// so every printer can use it.
#pragma once
#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <string_view>

namespace eb::report {

namespace detail {
// Appends byte c as \xNN (two lower-case hex digits).
inline void append_hex_escape(std::string& out, unsigned char c) {
    static constexpr char kHex[] = "0123456789abcdef";
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
}
} // namespace detail

// Printable ASCII as is; every other byte (controls, DEL, bytes >= 0x80,
// which include UTF-8's C1 controls such as CSI) as \xNN, and a backslash as
// \\ so the escaping is unambiguous. The trace reader rejects such strings
// outright; this is for text that is shown anyway.
inline std::string printable(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char ch : s) {
        auto c = static_cast<unsigned char>(ch);
        if (c == '\\') {
            out += "\\\\";
        } else if (c >= 0x20 && c < 0x7f) {
            out += ch;
        } else {
            detail::append_hex_escape(out, c);
        }
    }
    return out;
}

// printable(s) in at most `width` columns (width >= 3), so a long function
// name keeps a table's columns: when longer, cut and ending in "...". The
// cut falls between escapes, never inside one ("\x1" would read as another byte).
inline std::string printable_fit(std::string_view s, size_t width) {
    std::string out = printable(s);
    if (out.size() <= width) return out;
    std::string cut;
    for (size_t i = 0; i < s.size(); ++i) {
        std::string piece = printable(s.substr(i, 1));
        if (cut.size() + piece.size() > width - 3) break;
        cut += piece;
    }
    return cut + "...";
}

// A word a shell reads back as `s`, made of printable ASCII only, so a
// command line suggested to the user can be shown as it is and pasted:
// bare when safe, single-quoted ('"'"' for a quote, never a backslash, which
// printable() would double), or bash's $'...' with \xNN escapes when `s`
// holds other bytes.
inline std::string shell_word(std::string_view s) {
    auto visible = [](unsigned char c) { return c >= 0x20 && c < 0x7f; };
    if (!s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
            return (c < 0x80 && std::isalnum(c)) || (c != 0 && std::strchr("/._-+:,=@%", c));
        }))
        return std::string(s);
    std::string out;
    if (std::all_of(s.begin(), s.end(), visible)) {
        out = "'";
        for (char c : s) out += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
        return out + "'";
    }
    out = "$'";
    for (char ch : s) {
        auto c = static_cast<unsigned char>(ch);
        if (c == '\'' || c == '\\') {
            out += '\\';
            out += ch;
        } else if (visible(c)) {
            out += ch;
        } else {
            detail::append_hex_escape(out, c);
        }
    }
    return out + "'";
}

} // namespace eb::report
