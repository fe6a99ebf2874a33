// The embedded guest image and the bodies it exports.
#pragma once
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "guest/abi.h"

namespace eb::vmm {

class GuestImage {
public:
    // Validates the header and reads the body table; throws on a bad image.
    static GuestImage parse(std::span<const uint8_t> bytes);
    static const GuestImage& embedded();

    std::span<const uint8_t> bytes() const { return bytes_; }
    const abi::ImageHeader& header() const { return header_; }
    const abi::BodyEntry* body(std::string_view name) const;
    std::vector<std::string> body_names() const;

private:
    std::span<const uint8_t> bytes_;
    abi::ImageHeader header_{};
    std::map<std::string, abi::BodyEntry, std::less<>> bodies_;
};

} // namespace eb::vmm
