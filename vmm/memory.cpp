#include "vmm/memory.h"

#include <cerrno>
#include <sys/mman.h>

#include "kvm/error.h"

namespace eb::vmm {

GuestMemory::GuestMemory(uint64_t bytes) : size_(bytes) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
    if (p == MAP_FAILED) throw kvm::Error("mmap guest memory", errno);
    base_ = static_cast<uint8_t*>(p);
}

GuestMemory::~GuestMemory() { ::munmap(base_, size_); }

} // namespace eb::vmm
