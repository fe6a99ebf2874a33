// A VM fd.
#pragma once
#include <cstdint>
#include <vector>

#include <linux/kvm.h>

#include "kvm/caps.h"
#include "kvm/fd.h"

namespace eb::kvm {

class System;
class Vcpu;
class StatsFd;

class Vm {
public:
    Vm(Fd fd, const System& sys) : fd_(std::move(fd)), sys_(&sys) {}

    int check_extension(Cap cap) const;
    void set_user_memory_region(uint32_t slot, uint64_t gpa, uint64_t size, void* hva,
                                uint32_t flags = 0);
    void create_irqchip();
    void set_tss_addr(uint64_t gpa);
    void set_identity_map_addr(uint64_t gpa);
    void enable_cap(uint32_t cap, uint64_t arg0 = 0);
    // `len` 0 with KVM_CAP_IOEVENTFD_ANY_LENGTH matches any access size.
    void ioeventfd(int efd, uint64_t addr, uint32_t len, bool pio,
                   const uint64_t* datamatch = nullptr, bool deassign = false);
    void set_msr_filter(const kvm_msr_filter& filter);
    Vcpu create_vcpu(uint32_t id) const;
    StatsFd stats_fd() const;

    int fd() const { return fd_.get(); }
    const System& system() const { return *sys_; }

private:
    Fd fd_;
    const System* sys_;
};

} // namespace eb::kvm
