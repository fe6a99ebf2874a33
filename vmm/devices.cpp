#include "vmm/devices.h"

#include <cstring>
#include <ctime>

#include "guest/abi.h"

namespace eb::vmm {

namespace {
Handler constant_reader(uint32_t value) {
    return [value](const Access& a) {
        if (!a.write) {
            uint64_t v = value;
            std::memcpy(a.data.data(), &v, std::min<size_t>(a.data.size(), sizeof v));
        }
        return Action::Resume;
    };
}
} // namespace

void install_test_devices(Machine& m) {
    m.pio().add(kUserPortDevice, abi::kUserPort, 4, constant_reader(abi::kUserPortValue));
    m.mmio().add(kUserMmioDevice, abi::kUserMmio, 0x1000, constant_reader(abi::kUserMmioValue));
}

uint32_t pm_timer_now() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    unsigned __int128 ns = static_cast<unsigned __int128>(ts.tv_sec) * 1000000000u + ts.tv_nsec;
    return static_cast<uint32_t>(ns * 3579545u / 1000000000u) & 0xffffff;
}

void install_pm_timer(Machine& m) {
    m.pio().add(kPmTimerDevice, abi::kPmTimerPort, 4, [](const Access& a) {
        if (!a.write) {
            uint32_t v = pm_timer_now();
            std::memcpy(a.data.data(), &v, std::min<size_t>(a.data.size(), sizeof v));
        }
        return Action::Resume;
    });
}

Handler write_sink() {
    return [](const Access& a) {
        if (!a.write) std::memset(a.data.data(), 0, a.data.size());
        return Action::Resume;
    };
}

} // namespace eb::vmm
