#include "vmm/io_bus.h"

#include <stdexcept>

namespace eb::vmm {

IoBus::Region& IoBus::add(std::string name, uint64_t base, uint64_t len, Handler h) {
    for (const auto& r : regions_)
        if (base < r->base + r->len && r->base < base + len)
            throw std::logic_error("I/O region " + name + " overlaps " + r->name);
    auto r = std::make_unique<Region>();
    r->name = std::move(name);
    r->base = base;
    r->len = len;
    r->handler = std::move(h);
    regions_.push_back(std::move(r));
    return *regions_.back();
}

IoBus::Region* IoBus::find(uint64_t addr) const {
    for (const auto& r : regions_)
        if (addr >= r->base && addr - r->base < r->len) return r.get();
    return nullptr;
}

const IoBus::Region* IoBus::region(std::string_view name) const {
    for (const auto& r : regions_)
        if (r->name == name) return r.get();
    return nullptr;
}

uint64_t IoBus::total_hits() const {
    uint64_t n = 0;
    for (const auto& r : regions_) n += r->hits.load(std::memory_order_relaxed);
    return n;
}

} // namespace eb::vmm
