#include "bench/floor.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <linux/kvm.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <x86intrin.h>

#include "guest/abi.h"
#include "sys/fd.h"

namespace eb::bench {

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kCode = 0x1000;        // the guest's code, in real mode
constexpr uint64_t kMmio = 0x20000;       // no memory slot here: every access exits
constexpr uint32_t kUserMsr = 0x3b;       // TSC_ADJUST, filtered to userspace as exitbench does
constexpr size_t kLoopSlot = 0x10000;     // the exit loops need only their code

// Real-mode loops of one exiting instruction and a jump back.
// mov dx, 0x1234; out dx, al; jmp $-6
constexpr uint8_t kPioLoop[] = {0xba, 0x34, 0x12, 0xee, 0xeb, 0xfa};
// mov al, [0] (DS based at kMmio); jmp $-5
constexpr uint8_t kMmioLoop[] = {0xa0, 0x00, 0x00, 0xeb, 0xfb};
// mov ecx, 0x3b; rdmsr; jmp $-10
constexpr uint8_t kMsrLoop[] = {0x66, 0xb9, 0x3b, 0x00, 0x00, 0x00, 0x0f, 0x32, 0xeb, 0xf6};

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// One VM with one vCPU in real mode at kCode; everything is released by the
// destructor. Errors leave `why` set and ok() false.
struct Bare {
    sys::Fd kvm, vm, vcpu;
    void* mem = MAP_FAILED;
    size_t mem_bytes = 0;
    kvm_run* run = nullptr;
    size_t run_bytes = 0;
    std::string why;

    ~Bare() {
        if (run) ::munmap(run, run_bytes);
        if (mem != MAP_FAILED) ::munmap(mem, mem_bytes);
    }
    bool fail(const char* step) {
        why = std::string(step) + ": " + std::strerror(errno);
        return false;
    }
    bool open() {
        kvm.reset(::open("/dev/kvm", O_RDWR | O_CLOEXEC));
        return kvm.get() >= 0 || fail("open /dev/kvm");
    }
    bool build(size_t slot_bytes, const uint8_t* code, size_t code_bytes);
    // One KVM_RUN, to the next exit.
    bool enter() { return ::ioctl(vcpu.get(), KVM_RUN, 0ul) >= 0 || fail("KVM_RUN"); }
};

bool Bare::build(size_t slot_bytes, const uint8_t* code, size_t code_bytes) {
    vm.reset(::ioctl(kvm.get(), KVM_CREATE_VM, 0ul));
    if (vm.get() < 0) return fail("KVM_CREATE_VM");
    mem_bytes = slot_bytes;
    mem = ::mmap(nullptr, mem_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) return fail("mmap guest memory");
    std::memcpy(static_cast<uint8_t*>(mem) + kCode, code, code_bytes);
    kvm_userspace_memory_region r{0, 0, 0, mem_bytes, reinterpret_cast<uint64_t>(mem)};
    if (::ioctl(vm.get(), KVM_SET_USER_MEMORY_REGION, &r) < 0) return fail("KVM_SET_USER_MEMORY_REGION");
    vcpu.reset(::ioctl(vm.get(), KVM_CREATE_VCPU, 0ul));
    if (vcpu.get() < 0) return fail("KVM_CREATE_VCPU");
    int size = ::ioctl(kvm.get(), KVM_GET_VCPU_MMAP_SIZE, 0ul);
    if (size <= 0) return fail("KVM_GET_VCPU_MMAP_SIZE");
    run_bytes = size_t(size);
    void* p = ::mmap(nullptr, run_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu.get(), 0);
    if (p == MAP_FAILED) return fail("mmap the vCPU's run area");
    run = static_cast<kvm_run*>(p);
    kvm_sregs s{};
    if (::ioctl(vcpu.get(), KVM_GET_SREGS, &s) < 0) return fail("KVM_GET_SREGS");
    s.cs.base = 0;
    s.cs.selector = 0;
    s.ds.base = kMmio;
    s.ds.selector = kMmio >> 4;
    if (::ioctl(vcpu.get(), KVM_SET_SREGS, &s) < 0) return fail("KVM_SET_SREGS");
    kvm_regs g{};
    g.rip = kCode;
    g.rflags = 2;
    if (::ioctl(vcpu.get(), KVM_SET_REGS, &g) < 0) return fail("KVM_SET_REGS");
    return true;
}

bool exit_is(const kvm_run* run, FloorExit kind) {
    switch (kind) {
    case FloorExit::Pio: return run->exit_reason == KVM_EXIT_IO;
    case FloorExit::Mmio: return run->exit_reason == KVM_EXIT_MMIO;
    case FloorExit::Msr: return run->exit_reason == KVM_EXIT_X86_RDMSR;
    }
    return false;
}

// The same filter as exitbench's rdmsr_to_user: reads of TSC_ADJUST go to userspace.
bool filter_msr(Bare& b) {
    kvm_enable_cap cap{};
    cap.cap = KVM_CAP_X86_USER_SPACE_MSR;
    cap.args[0] = KVM_MSR_EXIT_REASON_FILTER;
    if (::ioctl(b.vm.get(), KVM_ENABLE_CAP, &cap) < 0) return b.fail("KVM_CAP_X86_USER_SPACE_MSR");
    static uint8_t deny = 0;
    kvm_msr_filter f{};
    f.flags = KVM_MSR_FILTER_DEFAULT_ALLOW;
    f.ranges[0] = {KVM_MSR_FILTER_READ | KVM_MSR_FILTER_WRITE, 1, kUserMsr, &deny};
    return ::ioctl(b.vm.get(), KVM_X86_SET_MSR_FILTER, &f) == 0 || b.fail("KVM_X86_SET_MSR_FILTER");
}

} // namespace

const char* floor_exit_name(FloorExit k) {
    switch (k) {
    case FloorExit::Pio: return "pio";
    case FloorExit::Mmio: return "mmio";
    case FloorExit::Msr: return "msr";
    }
    return "?";
}

std::optional<FloorStartup> floor_startup(std::string& why_not) {
    Bare b;
    FloorStartup s;
    auto t0 = Clock::now();
    bool ok = b.open();
    s.open_ms = ms_since(t0);
    ok = ok && b.build(abi::kRamBytes, kPioLoop, sizeof kPioLoop);
    s.build_ms = ms_since(t0);
    ok = ok && b.enter();
    s.first_exit_ms = ms_since(t0);
    if (!ok) {
        why_not = b.why;
        return std::nullopt;
    }
    if (!exit_is(b.run, FloorExit::Pio)) {
        why_not = "the real-mode guest's first exit is reason " + std::to_string(b.run->exit_reason) + ", not port I/O";
        return std::nullopt;
    }
    return s;
}

std::optional<FloorLoop> floor_exit_loop(FloorExit kind, size_t exits, std::string& why_not) {
    Bare b;
    const uint8_t* code = kind == FloorExit::Pio ? kPioLoop : kind == FloorExit::Mmio ? kMmioLoop : kMsrLoop;
    size_t len = kind == FloorExit::Pio ? sizeof kPioLoop : kind == FloorExit::Mmio ? sizeof kMmioLoop : sizeof kMsrLoop;
    if (!b.open() || !b.build(kLoopSlot, code, len) || (kind == FloorExit::Msr && !filter_msr(b))) {
        why_not = b.why;
        return std::nullopt;
    }
    FloorLoop out;
    out.vmm_cycles.reserve(exits);
    out.round_trip_cycles.reserve(exits);
    uint64_t last_return = 0;
    for (size_t i = 0; i <= exits; ++i) {  // the first exit only starts the clock
        uint64_t enter = __rdtsc();
        if (!b.enter()) {
            why_not = b.why;
            return std::nullopt;
        }
        uint64_t ret = __rdtsc();
        if (!exit_is(b.run, kind)) {
            why_not = "exit reason " + std::to_string(b.run->exit_reason) + " instead of " + floor_exit_name(kind);
            return std::nullopt;
        }
        if (kind == FloorExit::Mmio) std::memset(b.run->mmio.data, 0, sizeof b.run->mmio.data);
        if (kind == FloorExit::Msr) {
            b.run->msr.error = 0;
            b.run->msr.data = 0;
        }
        if (i > 0) {
            out.vmm_cycles.push_back(double(enter - last_return));
            out.round_trip_cycles.push_back(double(ret - last_return));
        }
        last_return = ret;
    }
    return out;
}

} // namespace eb::bench
