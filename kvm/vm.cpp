#include "kvm/vm.h"

#include <sys/ioctl.h>

#include "kvm/error.h"
#include "kvm/stats.h"
#include "kvm/vcpu.h"

namespace eb::kvm {

int Vm::check_extension(Cap cap) const {
    // Ask the VM fd (some caps are per-VM), with the same test masking as System.
    if (masked_for_tests(cap)) return 0;
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
    checked_ioctl(fd_.get(), EB_IOCTL(KVM_SET_USER_MEMORY_REGION), &r);
}

void Vm::create_irqchip() {
    checked_ioctl(fd_.get(), EB_IOCTL(KVM_CREATE_IRQCHIP), 0ul);
}

void Vm::enable_cap(uint32_t cap, uint64_t arg0) {
    kvm_enable_cap c{};
    c.cap = cap;
    c.args[0] = arg0;
    checked_ioctl(fd_.get(), EB_IOCTL(KVM_ENABLE_CAP), &c);
}

void Vm::ioeventfd(int efd, AddrSpace space, uint64_t addr, uint32_t len,
                   std::optional<uint64_t> datamatch) {
    kvm_ioeventfd e{};
    e.addr = addr;
    e.len = len;
    e.fd = efd;
    if (space == AddrSpace::Pio) e.flags |= KVM_IOEVENTFD_FLAG_PIO;
    if (datamatch) {
        e.flags |= KVM_IOEVENTFD_FLAG_DATAMATCH;
        e.datamatch = *datamatch;
    }
    checked_ioctl(fd_.get(), EB_IOCTL(KVM_IOEVENTFD), &e);
}

void Vm::set_msr_filter(const kvm_msr_filter& filter) {
    checked_ioctl(fd_.get(), EB_IOCTL(KVM_X86_SET_MSR_FILTER), const_cast<kvm_msr_filter*>(&filter));
}

Vcpu Vm::create_vcpu(uint32_t id) const {
    int fd = checked_ioctl(fd_.get(), EB_IOCTL(KVM_CREATE_VCPU), static_cast<unsigned long>(id));
    return Vcpu(Fd(fd), id, vcpu_mmap_size_);
}

StatsFd Vm::stats_fd() const {
    int fd = checked_ioctl(fd_.get(), EB_IOCTL(KVM_GET_STATS_FD), 0ul);
    return StatsFd(Fd(fd));
}

} // namespace eb::kvm
