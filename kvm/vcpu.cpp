#include "kvm/vcpu.h"

#include <cerrno>
#include <memory>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <x86intrin.h>

#include "kvm/error.h"
#include "kvm/uapi.h"
#include "kvm/stats.h"

namespace eb::kvm {

Vcpu::Vcpu(Fd fd, uint32_t id, size_t mmap_size) : fd_(std::move(fd)), id_(id), mmap_size_(mmap_size) {
    void* p = ::mmap(nullptr, mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_.get(), 0);
    if (p == MAP_FAILED) throw Error("mmap kvm_run", errno);
    run_ = static_cast<kvm_run*>(p);
}

Vcpu::Vcpu(Vcpu&& o) noexcept
    : fd_(std::move(o.fd_)), id_(o.id_), run_(std::exchange(o.run_, nullptr)),
      mmap_size_(o.mmap_size_) {}

Vcpu::~Vcpu() {
    if (run_) ::munmap(run_, mmap_size_);
}

bool Vcpu::kicked() const {
    if (errno == EINTR || errno == EAGAIN) return true;
    throw Error(EB_IOCTL(KVM_RUN).name, errno);
}

kvm_regs Vcpu::regs() const {
    kvm_regs r{};
    checked_ioctl(fd_.get(), EB_IOCTL(KVM_GET_REGS), &r);
    return r;
}

void Vcpu::set_regs(const kvm_regs& r) {
    checked_ioctl(fd_.get(), EB_IOCTL(KVM_SET_REGS), const_cast<kvm_regs*>(&r));
}

kvm_sregs Vcpu::sregs() const {
    kvm_sregs s{};
    checked_ioctl(fd_.get(), EB_IOCTL(KVM_GET_SREGS), &s);
    return s;
}

void Vcpu::set_sregs(const kvm_sregs& s) {
    checked_ioctl(fd_.get(), EB_IOCTL(KVM_SET_SREGS), const_cast<kvm_sregs*>(&s));
}

void Vcpu::set_cpuid(const std::vector<kvm_cpuid_entry2>& entries) {
    uapi::Flex<uapi::Cpuid2, kvm_cpuid_entry2> c(static_cast<uint32_t>(entries.size()));
    c.hdr()->nent = static_cast<uint32_t>(entries.size());
    std::copy(entries.begin(), entries.end(), c.entries());
    checked_ioctl(fd_.get(), uapi::kSetCpuid2, c.hdr());
}

std::vector<kvm_cpuid_entry2> Vcpu::cpuid() const {
    constexpr uint32_t n = 256;
    uapi::Flex<uapi::Cpuid2, kvm_cpuid_entry2> c(n);
    c.hdr()->nent = n;
    checked_ioctl(fd_.get(), uapi::kGetCpuid2, c.hdr());
    return {c.entries(), c.entries() + c.hdr()->nent};
}

std::optional<uint64_t> Vcpu::msr(uint32_t index) const {
    uapi::Flex<uapi::Msrs, kvm_msr_entry> m(1);
    m.hdr()->nmsrs = 1;
    m.entries()[0].index = index;
    if (checked_ioctl(fd_.get(), uapi::kGetMsrs, m.hdr()) != 1) return std::nullopt;
    return m.entries()[0].data;
}

uint64_t Vcpu::tsc_khz() const {
    return static_cast<uint64_t>(checked_ioctl(fd_.get(), EB_IOCTL(KVM_GET_TSC_KHZ), 0ul));
}

void Vcpu::set_mp_state(uint32_t state) {
    kvm_mp_state s{state};
    checked_ioctl(fd_.get(), EB_IOCTL(KVM_SET_MP_STATE), &s);
}

StatsFd Vcpu::stats_fd() const {
    int fd = checked_ioctl(fd_.get(), EB_IOCTL(KVM_GET_STATS_FD), 0ul);
    return StatsFd(Fd(fd));
}

} // namespace eb::kvm
