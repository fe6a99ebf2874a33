// A VM fd.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <linux/kvm.h>

#include "kvm/caps.h"
#include "kvm/fd.h"

namespace eb::kvm {

class Vcpu;
class StatsFd;

// Which address space an ioeventfd listens in.
enum class AddrSpace { Mmio, Pio };

// A VM fd. It needs nothing from the System that made it but the size of a
// vCPU's kvm_run mapping, which it keeps.
class Vm {
public:
    Vm(Fd fd, size_t vcpu_mmap_size) : fd_(std::move(fd)), vcpu_mmap_size_(vcpu_mmap_size) {}

    int check_extension(Cap cap) const;
    void set_user_memory_region(uint32_t slot, uint64_t gpa, uint64_t size, void* hva,
                                uint32_t flags = 0);
    void create_irqchip();
    void enable_cap(uint32_t cap, uint64_t arg0 = 0);
    // Signals `efd` on guest writes to [addr, addr + len) that match
    // `datamatch`, if given, instead of exiting. `len` 0 (with
    // KVM_CAP_IOEVENTFD_ANY_LENGTH) matches any access size.
    void ioeventfd(int efd, AddrSpace space, uint64_t addr, uint32_t len,
                   std::optional<uint64_t> datamatch = std::nullopt);
    void set_msr_filter(const kvm_msr_filter& filter);
    Vcpu create_vcpu(uint32_t id) const;
    StatsFd stats_fd() const;

    int fd() const { return fd_.get(); }

private:
    Fd fd_;
    size_t vcpu_mmap_size_;
};

} // namespace eb::kvm
