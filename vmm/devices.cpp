#include "vmm/devices.h"

#include <cstring>

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

} // namespace eb::vmm
