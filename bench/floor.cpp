#include "bench/floor.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <linux/kvm.h>
#include <memory>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <x86intrin.h>

#include "bench/common.h"
#include "guest/abi.h"
#include "kvm/vcpu.h"
#include "sys/fd.h"
#include "vmm/exit_times.h"

namespace eb::bench {

namespace {

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


// The answer to a read, as exitbench's devices give it: zeroes.
void answer(kvm_run& run, FloorExit kind) {
    if (kind == FloorExit::Mmio) std::memset(run.mmio.data, 0, sizeof run.mmio.data);
    if (kind == FloorExit::Msr) {
        run.msr.error = 0;
        run.msr.data = 0;
    }
}

bool failed(std::string& why, std::string what) {
    why = std::move(what);
    return false;
}

bool wrong_exit(const kvm_run& run, std::string& why) {
    return failed(why, "exit reason " + std::to_string(run.exit_reason));
}

// Each loop's step() is one KVM_RUN and the answer to its exit: false on a
// failure or a wrong exit (with `why`); the TSC before and after it in `in`, `out`.
struct BareLoop {
    Bare& b;
    bool step(FloorExit kind, uint64_t& in, uint64_t& out, std::string& why) {
        in = __rdtsc();
        if (!b.enter()) return failed(why, b.why);
        out = __rdtsc();
        if (!exit_is(b.run, kind)) return wrong_exit(*b.run, why);
        answer(*b.run, kind);
        return true;
    }
};

struct RawLoop {
    kvm::Vcpu& v;
    vmm::ExitTimes* times;  // the VMM's histogram, when that layer is measured
    uint64_t last_out = 0;
    bool step(FloorExit kind, uint64_t& in, uint64_t& out, std::string& why) {
        if (!v.enter()) return failed(why, "KVM_RUN interrupted");
        if (times && last_out) times->record(v.entered_tsc() - last_out);
        in = v.entered_tsc();
        out = last_out = v.returned_tsc();
        kvm_run& run = v.exit_area();
        if (!exit_is(&run, kind)) return wrong_exit(run, why);
        answer(run, kind);
        return true;
    }
};

// `exits` exits through `loop`; the first only starts the clock.
template <class Loop>
std::optional<FloorLoop> measure(Loop loop, FloorExit kind, size_t exits, std::string& why_not) {
    FloorLoop out;
    out.vmm_cycles.reserve(exits);
    out.round_trip_cycles.reserve(exits);
    uint64_t last_return = 0;
    for (size_t i = 0; i <= exits; ++i) {
        uint64_t in = 0, ret = 0;
        if (!loop.step(kind, in, ret, why_not)) return std::nullopt;
        if (i > 0) {
            out.vmm_cycles.push_back(double(in - last_return));
            out.round_trip_cycles.push_back(double(ret - last_return));
        }
        last_return = ret;
    }
    return out;
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

const char* floor_path_name(FloorPath p) {
    switch (p) {
    case FloorPath::Bare: return "bare ioctl (the floor)";
    case FloorPath::VcpuRaw: return "kvm::Vcpu::enter(), kvm_run read raw";
    case FloorPath::VcpuRawRecorded: return "raw + vmm::ExitTimes::record";
    }
    return "?";
}

std::optional<FloorLoop> floor_exit_loop(FloorExit kind, size_t exits, std::string& why_not, FloorPath path) {
    Bare b;
    const uint8_t* code = kind == FloorExit::Pio ? kPioLoop : kind == FloorExit::Mmio ? kMmioLoop : kMsrLoop;
    size_t len = kind == FloorExit::Pio ? sizeof kPioLoop : kind == FloorExit::Mmio ? sizeof kMmioLoop : sizeof kMsrLoop;
    if (!b.open() || !b.build(kLoopSlot, code, len) || (kind == FloorExit::Msr && !filter_msr(b))) {
        why_not = b.why;
        return std::nullopt;
    }
    try {
        if (path == FloorPath::Bare) return measure(BareLoop{b}, kind, exits, why_not);
        kvm::Vcpu v(kvm::Fd(::fcntl(b.vcpu.get(), F_DUPFD_CLOEXEC, 0)), 0, b.run_bytes);
        switch (path) {
        case FloorPath::VcpuRawRecorded: {
            auto times = std::make_unique<vmm::ExitTimes>();
            return measure(RawLoop{v, times.get()}, kind, exits, why_not);
        }
        default: return measure(RawLoop{v, nullptr}, kind, exits, why_not);
        }
    } catch (const std::exception& e) {
        why_not = e.what();
        return std::nullopt;
    }
}

} // namespace eb::bench
