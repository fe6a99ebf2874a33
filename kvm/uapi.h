// C layouts of the KVM structs that end in a flexible array.
// linux-libc-dev 6.1 wraps those arrays in __DECLARE_FLEX_ARRAY, whose empty
// struct has size 1 in C++: the arrays move and the ioctl numbers, which encode
// sizeof, change. kvm/ uses these mirrors instead of the header's structs.
#pragma once
#include <cstdint>
#include <memory>
#include <linux/kvm.h>

#include "kvm/error.h"

namespace eb::kvm::uapi {

struct Cpuid2 {        // then kvm_cpuid_entry2[nent]
    uint32_t nent, padding;
};
struct Msrs {          // then kvm_msr_entry[nmsrs]
    uint32_t nmsrs, pad;
};
struct StatsDesc {     // then char name[name_size]
    uint32_t flags;
    int16_t exponent;
    uint16_t size;
    uint32_t offset;
    uint32_t bucket_size;
};
static_assert(sizeof(Cpuid2) == 8 && sizeof(Msrs) == 8 &&
              sizeof(StatsDesc) == 16);

// The header's numbers for these encode the wrong sizes; the names are the
// header's, for messages.
inline constexpr Ioctl kGetSupportedCpuid{_IOWR(KVMIO, 0x05, Cpuid2), "KVM_GET_SUPPORTED_CPUID"};
inline constexpr Ioctl kGetMsrs{_IOWR(KVMIO, 0x88, Msrs), "KVM_GET_MSRS"};
inline constexpr Ioctl kSetCpuid2{_IOW(KVMIO, 0x90, Cpuid2), "KVM_SET_CPUID2"};
inline constexpr Ioctl kGetCpuid2{_IOWR(KVMIO, 0x91, Cpuid2), "KVM_GET_CPUID2"};

// A header followed by `n` entries, zeroed and suitably aligned.
template <class Header, class Entry>
class Flex {
public:
    explicit Flex(uint32_t n) : buf_(new uint64_t[(sizeof(Header) + n * sizeof(Entry) + 7) / 8]()) {}
    Header* hdr() { return reinterpret_cast<Header*>(buf_.get()); }
    Entry* entries() { return reinterpret_cast<Entry*>(reinterpret_cast<uint8_t*>(buf_.get()) + sizeof(Header)); }
private:
    std::unique_ptr<uint64_t[]> buf_;
};

} // namespace eb::kvm::uapi
