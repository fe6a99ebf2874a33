#include <gtest/gtest.h>

#include <cstring>

#include "kvm/stats.h"
#include "kvm/uapi.h"

using namespace eb;

namespace {
// Lays out a stats fd the way KVM does: header, id, descriptors, data.
std::vector<uint8_t> fake_stats(const std::vector<std::pair<std::string, uint32_t>>& descs) {
    constexpr uint32_t name_size = 48;
    kvm_stats_header h{};
    h.name_size = name_size;
    h.num_desc = static_cast<uint32_t>(descs.size());
    h.id_offset = sizeof h;
    h.desc_offset = h.id_offset + name_size;
    h.data_offset = h.desc_offset + h.num_desc * (sizeof(kvm::uapi::StatsDesc) + name_size);
    std::vector<uint8_t> b(h.data_offset);
    std::memcpy(b.data(), &h, sizeof h);
    std::strcpy(reinterpret_cast<char*>(b.data() + h.id_offset), "kvm-1/vcpu-0");
    uint32_t off = 0;
    for (size_t i = 0; i < descs.size(); ++i) {
        kvm::uapi::StatsDesc d{};
        d.size = static_cast<uint16_t>(descs[i].second);
        d.offset = off;
        off += 8 * d.size;
        uint8_t* p = b.data() + h.desc_offset + i * (sizeof d + name_size);
        std::memcpy(p, &d, sizeof d);
        std::strcpy(reinterpret_cast<char*>(p + sizeof d), descs[i].first.c_str());
    }
    return b;
}
} // namespace

TEST(StatsLayout, ParsesNamesOffsetsAndSizes) {
    auto l = kvm::parse_stats_layout(fake_stats({{"exits", 1}, {"halt_wait_hist", 32}, {"io_exits", 1}}));
    EXPECT_EQ(l.id, "kvm-1/vcpu-0");
    ASSERT_EQ(l.descs.size(), 3u);
    EXPECT_EQ(l.descs[2].name, "io_exits");
    EXPECT_EQ(l.descs[2].offset, 8u * 33);
    EXPECT_EQ(l.data_bytes, 8u * 34);
}

TEST(StatsLayout, RejectsTruncatedBuffers) {
    auto b = fake_stats({{"exits", 1}});
    EXPECT_THROW(kvm::parse_stats_layout({b.data(), 10}), std::runtime_error);
    EXPECT_THROW(kvm::parse_stats_layout({b.data(), b.size() - 8}), std::runtime_error);
}
