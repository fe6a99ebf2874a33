#include "vmm/image.h"

#include <cstring>
#include <stdexcept>

extern "C" const uint8_t eb_guest_image_begin[];
extern "C" const uint8_t eb_guest_image_end[];

namespace eb::vmm {

GuestImage GuestImage::parse(std::span<const uint8_t> bytes) {
    GuestImage img;
    img.bytes_ = bytes;
    if (bytes.size() < sizeof(abi::ImageHeader)) throw std::runtime_error("guest image: too small");
    std::memcpy(&img.header_, bytes.data(), sizeof img.header_);
    const auto& h = img.header_;
    if (h.magic != abi::kImageMagic || h.abi_version != abi::kAbiVersion)
        throw std::runtime_error("guest image: bad magic or ABI version");
    if (h.image_end < abi::kImageBase + bytes.size() || h.image_end - abi::kImageBase > abi::kImageMax)
        throw std::runtime_error("guest image: bad size");
    auto offset = [&](uint64_t gva, uint64_t len) {
        if (gva < abi::kImageBase || gva - abi::kImageBase + len > bytes.size())
            throw std::runtime_error("guest image: address outside the image");
        return gva - abi::kImageBase;
    };
    if (h.bodies_end < h.bodies_begin || (h.bodies_end - h.bodies_begin) % sizeof(abi::BodyEntry))
        throw std::runtime_error("guest image: bad body table");
    for (uint64_t a = h.bodies_begin; a < h.bodies_end; a += sizeof(abi::BodyEntry)) {
        abi::BodyEntry e;
        std::memcpy(&e, bytes.data() + offset(a, sizeof e), sizeof e);
        const char* name = reinterpret_cast<const char*>(bytes.data() + offset(e.name, 1));
        size_t max = bytes.size() - offset(e.name, 1);
        img.bodies_.emplace(std::string(name, strnlen(name, max)), e);
    }
    offset(h.entry, 1);
    offset(h.isr_stubs, 256 * abi::kIsrStubSize);
    return img;
}

const GuestImage& GuestImage::embedded() {
    static const GuestImage img = parse(
        {eb_guest_image_begin, static_cast<size_t>(eb_guest_image_end - eb_guest_image_begin)});
    return img;
}

const abi::BodyEntry* GuestImage::body(std::string_view name) const {
    auto it = bodies_.find(name);
    return it == bodies_.end() ? nullptr : &it->second;
}

std::vector<std::string> GuestImage::body_names() const {
    std::vector<std::string> out;
    for (const auto& [n, _] : bodies_) out.push_back(n);
    return out;
}

} // namespace eb::vmm
