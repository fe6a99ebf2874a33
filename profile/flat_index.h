// Internal to the analyzer: an open-addressing map from a 128-bit key to a
// dense index (0, 1, 2, ... in insertion order), so the per-event lookups of
// thread, row and vCPU allocate nothing once warm.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace eb::profile::detail {

class FlatIndex {
public:
    // The index of (k0, k1), adding it as size() when new.
    uint32_t find_or_add(uint64_t k0, uint64_t k1, bool& added) {
        if ((n_ + 1) * 2 > slots_.size()) grow();
        std::size_t mask = slots_.size() - 1;
        for (std::size_t i = hash(k0, k1) & mask;; i = (i + 1) & mask) {
            Slot& s = slots_[i];
            if (s.idx == kEmpty) {
                s = {k0, k1, n_};
                added = true;
                return n_++;
            }
            if (s.k0 == k0 && s.k1 == k1) {
                added = false;
                return s.idx;
            }
        }
    }
    uint32_t size() const { return n_; }

private:
    static constexpr uint32_t kEmpty = UINT32_MAX;
    struct Slot {
        uint64_t k0 = 0, k1 = 0;
        uint32_t idx = kEmpty;
    };

    static uint64_t hash(uint64_t a, uint64_t b) {
        uint64_t x = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull;
        x ^= x >> 31;
        x *= 0x94d049bb133111ebull;
        return x ^ (x >> 29);
    }

    void grow() {
        std::vector<Slot> old = std::move(slots_);
        slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
        std::size_t mask = slots_.size() - 1;
        for (const Slot& s : old) {
            if (s.idx == kEmpty) continue;
            std::size_t i = hash(s.k0, s.k1) & mask;
            while (slots_[i].idx != kEmpty) i = (i + 1) & mask;
            slots_[i] = s;
        }
    }

    std::vector<Slot> slots_;
    uint32_t n_ = 0;
};

} // namespace eb::profile::detail
