// Userspace dispatch of KVM_EXIT_IO and KVM_EXIT_MMIO to address ranges.
// Devices are added before the machine starts; Machine::start freezes each
// bus into one flat route table per vCPU (IoRoutes), which the exit path
// searches with no lock, no locked instruction and no allocation.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
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

// A device's callable, owned; called through one plain function pointer
// that the route table copies, so an exit reaches the device in one
// indirect call with no std::function in between.
class Handler {
public:
    using Call = Action (*)(void*, const Access&);
    template <class F>
        requires(!std::is_same_v<F, Handler> && std::is_invocable_r_v<Action, F&, const Access&>)
    Handler(F f)  // NOLINT(google-explicit-constructor): a lambda is a handler
        : obj_(new F(std::move(f)), [](void* p) { delete static_cast<F*>(p); }),
          call_([](void* p, const Access& a) { return Action((*static_cast<F*>(p))(a)); }) {}
    Action operator()(const Access& a) const { return call_(obj_.get(), a); }
    Call call() const { return call_; }
    void* object() const { return obj_.get(); }

private:
    std::unique_ptr<void, void (*)(void*)> obj_;
    Call call_;
};

// One vCPU's routes: the bus's regions in one array, the last one hit tried
// first (a test's exits mostly go to one device), and per region the exits
// this vCPU sent there, written by its thread only.
class IoRoutes {
public:
    struct Route {
        uint64_t base = 0, len = 0;
        Handler::Call call = nullptr;  // the region's handler, its pointers copied here
        void* object = nullptr;
        std::atomic<uint64_t> hits{0};
        Action operator()(const Access& a) const { return call(object, a); }
    };

    // nullptr if no region covers addr.
    Route* find(uint64_t addr) {
        if (last_ && addr - last_->base < last_->len) return last_;
        for (size_t k = 0; k < n_; ++k)
            if (addr - routes_[k].base < routes_[k].len) return last_ = &routes_[k];
        return nullptr;
    }
    // The owning vCPU thread only: a plain load and store, not a locked add.
    static void hit(Route& r) { r.hits.store(r.hits.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
    uint64_t hits(size_t k) const { return routes_[k].hits.load(std::memory_order_relaxed); }

private:
    friend class IoBus;
    std::unique_ptr<Route[]> routes_;
    size_t n_ = 0;
    Route* last_ = nullptr;
};

class IoBus {
public:
    struct Region {
        std::string name;
        uint64_t base, len;
        Handler handler;
    };

    // Throws on overlap with an existing region, or once the bus is frozen.
    Region& add(std::string name, uint64_t base, uint64_t len, Handler h);
    const Region* region(std::string_view name) const;

    // Builds the route tables of vCPUs 0..vcpus-1; add() is refused after.
    void freeze(uint32_t vcpus);
    bool frozen() const { return routes_ != nullptr; }
    IoRoutes& routes(uint32_t vcpu) { return routes_[vcpu]; }
    // Exits routed to one region, or to any, summed over the vCPUs; any
    // thread, exact when no vCPU is in a userspace exit. 0 before freeze().
    uint64_t hits(const Region& r) const;
    uint64_t total_hits() const;

private:
    std::vector<std::unique_ptr<Region>> regions_;
    std::unique_ptr<IoRoutes[]> routes_;
    uint32_t nr_routes_ = 0;
};

} // namespace eb::vmm
