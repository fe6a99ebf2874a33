// SHA-256 through OpenSSL, to record which exact file an imported result came from.
#pragma once
#include <string>
#include <string_view>

namespace eb::report {

// Lower-case hex digest of `data`.
std::string sha256_hex(std::string_view data);
// The digest in base64, as a Content-Security-Policy 'sha256-...' source wants it.
std::string sha256_base64(std::string_view data);

} // namespace eb::report
