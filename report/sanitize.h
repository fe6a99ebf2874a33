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

// Printable ASCII as is; every other byte (controls, DEL, bytes >= 0x80,
// which include UTF-8's C1 controls such as CSI) as \xNN, and a backslash as
// \\ so the escaping is unambiguous. The trace reader rejects such strings
// outright; this is for text that is shown anyway.
inline std::string printable(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(s.size());
    for (char ch : s) {
        auto c = static_cast<unsigned char>(ch);
        if (c == '\\') {
            out += "\\\\";
        } else if (c >= 0x20 && c < 0x7f) {
            out += ch;
        } else {
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

// A word a shell reads back as `s`, made of printable ASCII only, so a
// command line suggested to the user can be shown as it is and pasted:
// bare when safe, single-quoted ('"'"' for a quote, never a backslash, which
// printable() would double), or bash's $'...' with \xNN escapes when `s`
// holds other bytes.
inline std::string shell_word(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
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
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out + "'";
}

} // namespace eb::report
