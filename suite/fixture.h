// Host-side state a test needs beyond the standard devices (an ioeventfd, a
// device), and a check of that state after the run.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "vmm/machine.h"

namespace eb::suite {

class Fixture {
public:
    virtual ~Fixture() = default;
    virtual void install(vmm::Machine& m) = 0;
    struct Check {
        bool ok;
        std::string what;  // e.g. "ioeventfd fired 960 times for 960 guest writes"
    };
    // `writes`: iterations the guest ran in all batches.
    virtual std::optional<Check> check(uint64_t writes) { (void)writes; return std::nullopt; }
};
using FixtureFactory = std::function<std::unique_ptr<Fixture>()>;

enum class Space { Mmio, Pio };
enum class Delivery { ToUser, WildcardEventfd, DatamatchEventfd };

FixtureFactory pm_timer_fixture();
// The pci-testdev stand-in: writes exit to the VMM or are eaten by an ioeventfd.
FixtureFactory testdev_fixture(Space space, Delivery delivery);

} // namespace eb::suite
