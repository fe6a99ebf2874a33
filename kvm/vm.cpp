#include "kvm/vm.h"

#include <sys/ioctl.h>

#include "kvm/error.h"
#include "kvm/stats.h"
#include "kvm/system.h"
#include "kvm/vcpu.h"

namespace eb::kvm {

int Vm::check_extension(Cap cap) const {
    // Ask the VM fd (some caps are per-VM), but keep System's test masking.
    if (!sys_->check_extension(cap)) return 0;
    int r = ::ioctl(fd_.get(), KVM_CHECK_EXTENSION, cap.id);
    return r < 0 ? 0 : r;
}

void Vm::set_user_memory_region(uint32_t slot, uint64_t gpa, uint64_t size, void* hva,
                                uint32_t flags) {
    kvm_userspace_memory_region r{};
    r.slot = slot;
    r.flags = flags;
    r.guest_phys_addr = gpa;
    r.memory_size = size;
    r.userspace_addr = reinterpret_cast<uint64_t>(hva);
    checked_ioctl(fd_.get(), KVM_SET_USER_MEMORY_REGION, &r, "KVM_SET_USER_MEMORY_REGION");
}

void Vm::create_irqchip() {
    checked_ioctl(fd_.get(), KVM_CREATE_IRQCHIP, 0ul, "KVM_CREATE_IRQCHIP");
}

void Vm::set_tss_addr(uint64_t gpa) {
    checked_ioctl(fd_.get(), KVM_SET_TSS_ADDR, gpa, "KVM_SET_TSS_ADDR");
}

void Vm::set_identity_map_addr(uint64_t gpa) {
    checked_ioctl(fd_.get(), KVM_SET_IDENTITY_MAP_ADDR, &gpa, "KVM_SET_IDENTITY_MAP_ADDR");
}

void Vm::enable_cap(uint32_t cap, uint64_t arg0) {
    kvm_enable_cap c{};
    c.cap = cap;
    c.args[0] = arg0;
    checked_ioctl(fd_.get(), KVM_ENABLE_CAP, &c, "KVM_ENABLE_CAP");
}

void Vm::ioeventfd(int efd, uint64_t addr, uint32_t len, bool pio, const uint64_t* datamatch,
                   bool deassign) {
    kvm_ioeventfd e{};
    e.addr = addr;
    e.len = len;
    e.fd = efd;
    if (pio) e.flags |= KVM_IOEVENTFD_FLAG_PIO;
    if (datamatch) {
        e.flags |= KVM_IOEVENTFD_FLAG_DATAMATCH;
        e.datamatch = *datamatch;
    }
    if (deassign) e.flags |= KVM_IOEVENTFD_FLAG_DEASSIGN;
    checked_ioctl(fd_.get(), KVM_IOEVENTFD, &e, "KVM_IOEVENTFD");
}

void Vm::set_msr_filter(const kvm_msr_filter& filter) {
    checked_ioctl(fd_.get(), KVM_X86_SET_MSR_FILTER, const_cast<kvm_msr_filter*>(&filter),
                  "KVM_X86_SET_MSR_FILTER");
}

Vcpu Vm::create_vcpu(uint32_t id) const {
    int fd = checked_ioctl(fd_.get(), KVM_CREATE_VCPU, static_cast<unsigned long>(id),
                           "KVM_CREATE_VCPU");
    return Vcpu(Fd(fd), id, sys_->vcpu_mmap_size());
}

StatsFd Vm::stats_fd() const {
    int fd = checked_ioctl(fd_.get(), KVM_GET_STATS_FD, 0ul, "KVM_GET_STATS_FD");
    return StatsFd(Fd(fd));
}

} // namespace eb::kvm
