// Userspace dispatch of KVM_EXIT_IO and KVM_EXIT_MMIO to address ranges.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace eb::vmm {

// What the vCPU thread does after a handler ran.
enum class Action { Resume, Stop };

struct Access {
    uint32_t vcpu;
    uint64_t addr;
    bool write;
    std::span<uint8_t> data;  // in: written bytes; out: the value a read returns
};

using Handler = std::function<Action(const Access&)>;

class IoBus {
public:
    struct Region {
        std::string name;
        uint64_t base, len;
        Handler handler;
        std::atomic<uint64_t> hits{0};
    };

    // Throws on overlap with an existing region.
    Region& add(std::string name, uint64_t base, uint64_t len, Handler h);
    // nullptr if no region covers addr.
    Region* find(uint64_t addr) const;
    const Region* region(std::string_view name) const;
    uint64_t total_hits() const;

private:
    std::vector<std::unique_ptr<Region>> regions_;
};

} // namespace eb::vmm
