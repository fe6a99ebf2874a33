#include <gtest/gtest.h>
#include <stdexcept>

#include "vmm/io_bus.h"

using namespace eb;

namespace {
// A handler that records which device answered.
vmm::Handler io_bus_tag(int tag, int& seen) {
    return [tag, &seen](const vmm::Access&) {
        seen = tag;
        return tag == 3 ? vmm::Action::Stop : vmm::Action::Resume;
    };
}
} // namespace

TEST(IoBus, RoutesEachAddressToItsRegionAndNothingElse) {
    int seen = 0;
    vmm::IoBus bus;
    bus.add("a", 0x10, 4, io_bus_tag(1, seen));
    bus.add("b", 0x20, 1, io_bus_tag(2, seen));
    bus.add("c", 0x1000, 0x1000, io_bus_tag(3, seen));
    bus.freeze(1);
    auto& r = bus.routes(0);
    // Each region's edges, and the addresses just outside them, in an order
    // that leaves a different region as the last one hit before each probe.
    const std::pair<uint64_t, int> probes[] = {
        {0x10, 1}, {0x13, 1}, {0x14, 0}, {0x20, 2}, {0x0f, 0}, {0x21, 0}, {0x1000, 3}, {0x1fff, 3},
        {0x2000, 0}, {0x13, 1}, {0x1f, 0}, {0xfff, 0}, {~0ull, 0}, {0, 0}, {0x20, 2}};
    for (auto [addr, tag] : probes) {
        seen = 0;
        auto* route = r.find(addr);
        if (!tag) {
            EXPECT_EQ(route, nullptr) << std::hex << addr;
            continue;
        }
        ASSERT_NE(route, nullptr) << std::hex << addr;
        vmm::Action a = (*route)({0, addr, false, {}});
        EXPECT_EQ(seen, tag) << std::hex << addr;
        EXPECT_EQ(a, tag == 3 ? vmm::Action::Stop : vmm::Action::Resume);
    }
}

TEST(IoBus, EmptyBusRoutesNothing) {
    vmm::IoBus bus;
    bus.freeze(2);
    EXPECT_EQ(bus.routes(1).find(0x3f8), nullptr);
    EXPECT_EQ(bus.total_hits(), 0u);
}

TEST(IoBus, HitsAreCountedPerVcpuAndSummed) {
    int seen = 0;
    vmm::IoBus bus;
    const auto& a = bus.add("a", 0x10, 4, io_bus_tag(1, seen));
    const auto& b = bus.add("b", 0x20, 4, io_bus_tag(2, seen));
    EXPECT_EQ(bus.total_hits(), 0u) << "nothing counted before the bus is frozen";
    bus.freeze(2);
    for (int k = 0; k < 3; ++k) vmm::IoRoutes::hit(*bus.routes(0).find(0x11));
    vmm::IoRoutes::hit(*bus.routes(1).find(0x11));
    vmm::IoRoutes::hit(*bus.routes(1).find(0x22));
    EXPECT_EQ(bus.hits(a), 4u);
    EXPECT_EQ(bus.hits(b), 1u);
    EXPECT_EQ(bus.total_hits(), 5u);
    EXPECT_EQ(bus.region("b"), &b);
    EXPECT_EQ(bus.region("nope"), nullptr);
}

TEST(IoBus, RefusesOverlapsAndLateDevices) {
    int seen = 0;
    vmm::IoBus bus;
    bus.add("a", 0x10, 4, io_bus_tag(1, seen));
    EXPECT_THROW(bus.add("b", 0x13, 2, io_bus_tag(2, seen)), std::logic_error);
    EXPECT_THROW(bus.add("c", 0x0, 0x11, io_bus_tag(2, seen)), std::logic_error);
    bus.add("d", 0x14, 1, io_bus_tag(2, seen));  // adjacent is fine
    bus.freeze(1);
    EXPECT_THROW(bus.add("e", 0x100, 1, io_bus_tag(2, seen)), std::logic_error);
    EXPECT_THROW(bus.freeze(1), std::logic_error);
    EXPECT_NE(bus.routes(0).find(0x14), nullptr);
    EXPECT_EQ(bus.routes(0).find(0x100), nullptr);
}
