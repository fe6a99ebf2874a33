// A binary stats fd (KVM_GET_STATS_FD, vCPU or VM).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kvm/fd.h"

namespace eb::kvm {

struct StatDesc {
    std::string name;
    uint32_t flags = 0;
    uint32_t offset = 0;  // bytes into the data block
    uint32_t size = 0;    // number of u64 values (histograms have more than one)
};

struct StatsLayout {
    std::string id;
    uint32_t data_offset = 0;
    uint32_t data_bytes = 0;
    std::vector<StatDesc> descs;
};

// Parses the header and descriptors as laid out in the fd's first bytes.
// Pure, so it is tested on synthetic buffers; throws on a malformed layout.
StatsLayout parse_stats_layout(std::span<const uint8_t> bytes);

class StatsFd {
public:
    explicit StatsFd(Fd fd);

    const StatsLayout& layout() const { return layout_; }
    std::optional<size_t> find(std::string_view name) const;
    // The whole data block in one pread, so counters are read together.
    std::vector<uint64_t> read() const;
    // First value of descriptor `i` inside a block from read().
    uint64_t value(const std::vector<uint64_t>& block, size_t i) const {
        return block[layout_.descs[i].offset / 8];
    }

private:
    Fd fd_;
    StatsLayout layout_;
};

} // namespace eb::kvm
