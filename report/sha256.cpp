#include "report/sha256.h"

#include <openssl/evp.h>
#include <stdexcept>

#include "sys/error.h"

namespace eb::report {

std::string sha256_base64(std::string_view data) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_Digest(data.data(), data.size(), digest, &n, EVP_sha256(), nullptr) != 1)
        throw HostError("SHA-256 failed (OpenSSL's EVP_Digest)");
    unsigned char b64[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
    int len = EVP_EncodeBlock(b64, digest, static_cast<int>(n));
    return std::string(reinterpret_cast<char*>(b64), static_cast<size_t>(len));
}

std::string sha256_hex(std::string_view data) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_Digest(data.data(), data.size(), digest, &n, EVP_sha256(), nullptr) != 1)
        throw HostError("SHA-256 failed (OpenSSL's EVP_Digest)");
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (unsigned int i = 0; i < n; ++i) {
        hex += kHex[digest[i] >> 4];
        hex += kHex[digest[i] & 0xf];
    }
    return hex;
}

} // namespace eb::report
