#include "vmm/guest_symbols.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <sstream>

#include "guest/abi.h"

extern "C" const char eb_guest_syms_begin[];
extern "C" const char eb_guest_syms_end[];

namespace eb::vmm {

namespace {

constexpr std::string_view kBatch = "eb_batch_";

std::optional<uint64_t> hex(const std::string& s) {
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

// "eb_batch_wbinvd" from "_ZL15eb_batch_wbinvdm" (a static function's
// mangled name: its length, then the name) or from the plain name.
std::string body_of(const std::string& sym) {
    std::string_view s = sym;
    if (s.substr(0, 3) == "_ZL") {
        size_t i = 3, n = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') n = n * 10 + size_t(s[i++] - '0');
        if (n == 0 || i + n > s.size()) return {};
        s = s.substr(i, n);
    }
    if (s.substr(0, kBatch.size()) != kBatch) return {};
    return std::string(s.substr(kBatch.size()));
}

} // namespace

std::map<std::string, CodeRange, std::less<>> parse_batch_symbols(std::string_view nm) {
    std::map<std::string, CodeRange, std::less<>> out;
    std::istringstream in{std::string(nm)};
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string addr, size, type, name;
        if (!(words >> addr >> size >> type >> name) || (type != "t" && type != "T")) continue;
        auto a = hex(addr), n = hex(size);
        std::string body = body_of(name);
        if (!a || !n || body.empty() || *n == 0 || *a + *n < *a) continue;
        out[body] = {*a, *a + *n};
    }
    return out;
}

const std::map<std::string, CodeRange, std::less<>>& embedded_batch_symbols() {
    static const auto m = parse_batch_symbols({eb_guest_syms_begin, size_t(eb_guest_syms_end - eb_guest_syms_begin)});
    return m;
}

std::vector<uint64_t> find_code(const GuestImage& img, CodeRange r, std::span<const uint8_t> bytes) {
    std::vector<uint64_t> out;
    auto image = img.bytes();
    if (bytes.empty() || r.begin < abi::kImageBase || r.end <= r.begin) return out;
    uint64_t lo = r.begin - abi::kImageBase, hi = std::min<uint64_t>(r.end - abi::kImageBase, image.size());
    for (uint64_t off = lo; off + bytes.size() <= hi; ++off)
        if (std::equal(bytes.begin(), bytes.end(), image.begin() + off)) out.push_back(abi::kImageBase + off);
    return out;
}

} // namespace eb::vmm
