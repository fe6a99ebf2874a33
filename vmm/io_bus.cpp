#include "vmm/io_bus.h"

#include <stdexcept>

namespace eb::vmm {

IoBus::Region& IoBus::add(std::string name, uint64_t base, uint64_t len, Handler h) {
    if (frozen()) throw std::logic_error("I/O region " + name + " added after the machine started");
    for (const auto& r : regions_)
        if (base < r->base + r->len && r->base < base + len)
            throw std::logic_error("I/O region " + name + " overlaps " + r->name);
    regions_.push_back(std::make_unique<Region>(Region{std::move(name), base, len, std::move(h)}));
    return *regions_.back();
}

const IoBus::Region* IoBus::region(std::string_view name) const {
    for (const auto& r : regions_)
        if (r->name == name) return r.get();
    return nullptr;
}

void IoBus::freeze(uint32_t vcpus) {
    if (frozen()) throw std::logic_error("I/O bus frozen twice");
    routes_ = std::make_unique<IoRoutes[]>(vcpus);
    nr_routes_ = vcpus;
    for (uint32_t v = 0; v < vcpus; ++v) {
        auto& t = routes_[v];
        t.n_ = regions_.size();
        t.routes_ = std::make_unique<IoRoutes::Route[]>(t.n_);
        for (size_t k = 0; k < t.n_; ++k) {
            t.routes_[k].base = regions_[k]->base;
            t.routes_[k].len = regions_[k]->len;
            t.routes_[k].call = regions_[k]->handler.call();
            t.routes_[k].object = regions_[k]->handler.object();
        }
    }
}

uint64_t IoBus::hits(const Region& r) const {
    uint64_t n = 0;
    for (size_t k = 0; k < regions_.size(); ++k)
        if (regions_[k].get() == &r)
            for (uint32_t v = 0; v < nr_routes_; ++v) n += routes_[v].hits(k);
    return n;
}

uint64_t IoBus::total_hits() const {
    uint64_t n = 0;
    for (uint32_t v = 0; v < nr_routes_; ++v)
        for (size_t k = 0; k < regions_.size(); ++k) n += routes_[v].hits(k);
    return n;
}

} // namespace eb::vmm
