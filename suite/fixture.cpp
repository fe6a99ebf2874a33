#include "suite/fixture.h"

#include <fmt/format.h>

#include "guest/abi.h"
#include "vmm/devices.h"
#include "vmm/eventfd.h"

namespace eb::suite {

namespace {

class PmTimer : public Fixture {
public:
    void install(vmm::Machine& m) override { vmm::install_pm_timer(m); }
};

class TestDev : public Fixture {
public:
    TestDev(Space s, Delivery d) : space_(s), delivery_(d) {}

    void install(vmm::Machine& m) override {
        bool pio = space_ == Space::Pio;
        uint64_t addr = pio ? abi::kTestDevPort : abi::kTestDevMmio;
        // Writes that no ioeventfd takes still need a device.
        (pio ? m.pio() : m.mmio()).add("testdev", addr, pio ? 4 : 0x1000, vmm::write_sink());
        if (delivery_ == Delivery::ToUser) return;
        efd_.emplace();
        uint64_t match = abi::kTestDevValue;
        bool dm = delivery_ == Delivery::DatamatchEventfd;
        // An MMIO wildcard is KVM's zero-length "fast MMIO" eventfd, as pci-testdev uses.
        uint32_t len = !pio && !dm ? 0 : 4;
        m.vm().ioeventfd(efd_->fd(), addr, len, pio, dm ? &match : nullptr);
    }

    std::optional<Check> check(uint64_t writes) override {
        if (!efd_) return std::nullopt;
        uint64_t fired = efd_->take();
        return Check{fired == writes, fmt::format("ioeventfd fired {} times for {} guest writes", fired, writes)};
    }

private:
    Space space_;
    Delivery delivery_;
    std::optional<vmm::EventFd> efd_;
};

} // namespace

FixtureFactory pm_timer_fixture() {
    return [] { return std::make_unique<PmTimer>(); };
}

FixtureFactory testdev_fixture(Space space, Delivery delivery) {
    return [=] { return std::make_unique<TestDev>(space, delivery); };
}

} // namespace eb::suite
