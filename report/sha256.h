// SHA-256 through OpenSSL, to record which exact file an imported result came from.
#pragma once
#include <string>
#include <string_view>

namespace eb::report {

// Lower-case hex digest of `data`.
std::string sha256_hex(std::string_view data);

} // namespace eb::report
