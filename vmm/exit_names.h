#pragma once
#include <cstdint>
#include <string>

namespace eb::vmm {
// "KVM_EXIT_IO" etc.; unknown reasons keep their number.
std::string exit_reason_name(uint32_t reason);
}
