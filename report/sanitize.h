// Strings read from files (result JSON, traces) reach terminals: an ESC or
// other control byte in, say, cpu_model must not be printed raw. Header-only
// so every printer can use it.
#pragma once
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

} // namespace eb::report
