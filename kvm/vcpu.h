// A vCPU fd and its mmap'ed kvm_run.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include <linux/kvm.h>
#include <sys/ioctl.h>
#include <x86intrin.h>

#include "kvm/exit.h"
#include "kvm/fd.h"

namespace eb::kvm {

class StatsFd;

class Vcpu {
public:
    Vcpu(Fd fd, uint32_t id, size_t mmap_size);
    Vcpu(Vcpu&& o) noexcept;
    Vcpu& operator=(Vcpu&&) = delete;
    Vcpu(const Vcpu&) = delete;
    ~Vcpu();

    // One KVM_RUN, the exit left in exit_area() (read with kvm/exit.h):
    // false for EINTR/EAGAIN (a signal or immediate_exit); other failures throw.
    // Inline, the error path out of line: the exit path's only call.
    bool enter() {
        entered_tsc_ = __rdtsc();
        int r = ::ioctl(fd_.get(), KVM_RUN, 0);
        returned_tsc_ = __rdtsc();
        return r == 0 || !kicked();
    }
    kvm_run& exit_area() { return *run_; }

    kvm_regs regs() const;
    void set_regs(const kvm_regs& r);
    kvm_sregs sregs() const;
    void set_sregs(const kvm_sregs& s);
    void set_cpuid(const std::vector<kvm_cpuid_entry2>& entries);
    std::vector<kvm_cpuid_entry2> cpuid() const;
    // Reads one MSR; nullopt if KVM does not know it.
    std::optional<uint64_t> msr(uint32_t index) const;
    uint64_t tsc_khz() const;
    void set_mp_state(uint32_t state);
    StatsFd stats_fd() const;

    // Makes the next KVM_RUN return at once (EINTR); with a signal, kicks a
    // vCPU out of the guest.
    void set_immediate_exit() { run_->immediate_exit = 1; }
    uint32_t id() const { return id_; }
    // The TSC just before the last KVM_RUN and just after it returned: the
    // VMM's time around an exit, with nothing of the ioctl's decoding in it.
    uint64_t entered_tsc() const { return entered_tsc_; }
    uint64_t returned_tsc() const { return returned_tsc_; }
    int fd() const { return fd_.get(); }

private:
    // After a failed KVM_RUN: true for EINTR/EAGAIN (a kick); other errors throw.
    bool kicked() const;

    Fd fd_;
    uint32_t id_;
    kvm_run* run_;
    size_t mmap_size_;
    uint64_t entered_tsc_ = 0, returned_tsc_ = 0;
};

} // namespace eb::kvm
