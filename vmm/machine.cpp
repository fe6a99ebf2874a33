#include "vmm/machine.h"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <mutex>
#include <pthread.h>
#include <sched.h>
#include <stdexcept>
#include <unistd.h>

#include "guest/abi.h"
#include "kvm/error.h"
#include "kvm/exit.h"
#include "vmm/cpuid_features.h"

#include "sys/error.h"

namespace eb::vmm {

namespace {

// SIGUSR1 only interrupts KVM_RUN; its handler does nothing.
constexpr int kKickSignal = SIGUSR1;

void install_kick_handler() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction sa{};
        sa.sa_handler = [](int) {};
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0;  // no SA_RESTART: KVM_RUN must return EINTR
        sigaction(kKickSignal, &sa, nullptr);
    });
}

// "KVM_EXIT_HLT", or the number of a reason the table does not know.
std::string kvm_exit_label(uint32_t reason) {
    const char* name = kvm::exit_name(reason);
    return name ? std::string("KVM_EXIT_") + name : "KVM exit reason " + std::to_string(reason);
}

// A userspace exit the test provoked: not the harness's ucall, not a kick.
bool is_test_exit(const kvm_run& run) {
    switch (run.exit_reason) {
    case KVM_EXIT_IO: return run.io.port != abi::kUcallPort;
    case KVM_EXIT_MMIO:
    case KVM_EXIT_HYPERCALL:
    case KVM_EXIT_X86_RDMSR:
    case KVM_EXIT_X86_WRMSR: return true;
    default: return false;
    }
}

// The owning vCPU thread's increment of its own counter: no locked add.
void bump(std::atomic<uint64_t>& a) { a.store(a.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }

kvm::Vm create_vm(const kvm::System& sys, StartTrace* trace) {
    auto vm = sys.create_vm();
    mark(trace, StartStep::Vm);
    return vm;
}

} // namespace

void check_host(const kvm::System& sys) {
    for (auto cap : {EB_CAP(USER_MEMORY), EB_CAP(IRQCHIP), EB_CAP(IMMEDIATE_EXIT), EB_CAP(EXT_CPUID)})
        sys.require(cap);
}

Machine::Machine(const kvm::System& sys, const GuestImage& image, const MachineConfig& cfg)
    : vm_(create_vm(sys, cfg.trace)), mem_(abi::kRamBytes), pin_(cfg.pin), trace_(cfg.trace) {
    mark(trace_, StartStep::Memory);
    if (cfg.vcpus == 0 || cfg.vcpus > abi::kMaxVcpus)
        throw std::invalid_argument(fmt::format("vCPU count must be 1..{}", abi::kMaxVcpus));
    check_host(sys);
    install_kick_handler();
    // The slot before the irqchip: KVM_SET_USER_MEMORY_REGION after
    // KVM_CREATE_IRQCHIP costs kvm_pvm ~6 ms (the bench's per-step trace), before it ~0.1 ms.
    vm_.set_user_memory_region(0, 0, mem_.size(), mem_.base());
    mark(trace_, StartStep::Slot);
    vm_.create_irqchip();
    mark(trace_, StartStep::Irqchip);

    mem_.write(abi::kImageBase, image.bytes());
    mark(trace_, StartStep::Image);
    write_page_tables(mem_);
    write_descriptor_tables(mem_, image, cfg.vcpus);
    auto* boot = mem_.at<abi::BootInfo>(abi::kBootInfo);
    boot->magic = abi::kImageMagic;
    boot->nr_vcpus = cfg.vcpus;
    boot->batch = cfg.batch;
    boot->setup = cfg.setup;
    boot->apic_mode = cfg.apic_mode;
    boot->parallel = cfg.parallel;
    boot->irq_wait_cycles = cfg.irq_wait_cycles;
    boot->per_exit = cfg.per_exit;
    if (cfg.msr_knobs.size() > abi::kMaxKnobs || cfg.cpuid_probes.size() > abi::kMaxKnobs)
        throw std::invalid_argument(fmt::format("at most {} guest MSR knobs and {} CPUID probes",
                                                abi::kMaxKnobs, abi::kMaxKnobs));
    boot->nr_msr_knobs = static_cast<uint32_t>(cfg.msr_knobs.size());
    for (size_t i = 0; i < cfg.msr_knobs.size(); ++i)
        boot->msr_knobs[i] = {cfg.msr_knobs[i].first, 0, cfg.msr_knobs[i].second};
    boot->nr_cpuid_probes = static_cast<uint32_t>(cfg.cpuid_probes.size());
    for (size_t i = 0; i < cfg.cpuid_probes.size(); ++i)
        boot->cpuid_probes[i] = {cfg.cpuid_probes[i].first, cfg.cpuid_probes[i].second};

    mark(trace_, StartStep::Tables);

    auto supported = cfg.cpuid.empty() ? guest_cpuid(sys) : cfg.cpuid;
    GuestCpuState st = cfg.cpu;
    st.efer_nx = st.efer_nx && cpuid_bit(supported, cpuid::kNx);
    mark(trace_, StartStep::Cpuid);
    vcpus_.reserve(cfg.vcpus);
    for (uint32_t i = 0; i < cfg.vcpus; ++i) {
        auto* mb = mem_.at<abi::Mailbox>(abi::mailbox_gpa(i));
        mb->self = abi::mailbox_gpa(i);
        mb->vcpu = i;
        auto& v = vcpus_.emplace_back(vm_.create_vcpu(i));
        mark(trace_, StartStep::VcpuCreate);
        v.set_cpuid(vcpu_cpuid(supported, i));
        mark(trace_, StartStep::VcpuCpuid);
        v.set_sregs(long_mode_sregs(v.sregs(), i, st));
        v.set_regs(entry_regs(image, i));
        // APs would wait for INIT/SIPI; ours start in long mode like the BSP.
        if (i) v.set_mp_state(KVM_MP_STATE_RUNNABLE);
        mark(trace_, StartStep::VcpuState);
    }
    outcomes_.resize(cfg.vcpus);
    counts_ = std::make_unique<VcpuCounts[]>(cfg.vcpus);
    times_ = std::make_unique<ExitTimes[]>(cfg.vcpus);
    tids_ = std::make_unique<std::atomic<pid_t>[]>(cfg.vcpus);
    mark(trace_, StartStep::Bookkeeping);
}

Machine::~Machine() {
    try {
        stop();
    } catch (const std::exception& e) {
        // The threads still use this object's memory: neither freeing it nor
        // waiting forever is an option.
        fmt::print(stderr, "exitbench: fatal: {}; aborting\n", e.what());
        std::abort();
    }
}

void Machine::start() {
    // vCPU threads must not take the process's stop signals; they inherit
    // this mask. The guard restores it however start() ends.
    sigset_t block;
    sigemptyset(&block);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, sig);
    struct MaskGuard {
        sigset_t old;
        ~MaskGuard() { pthread_sigmask(SIG_SETMASK, &old, nullptr); }
    } guard;
    pthread_sigmask(SIG_BLOCK, &block, &guard.old);
    // The exit path's route tables, fixed from here on.
    pio_.freeze(nr_vcpus());
    mmio_.freeze(nr_vcpus());
    threads_.reserve(nr_vcpus());  // so only the thread's creation can throw below
    for (uint32_t i = 0; i < nr_vcpus(); ++i) {
        {
            std::lock_guard lk(mu_);
            ++running_;
        }
        try {
            threads_.emplace_back([this, i] { vcpu_loop(i); });
        } catch (...) {
            // Uncount the thread that does not exist, so stop() waits only
            // for those that do.
            {
                std::lock_guard lk(mu_);
                --running_;
            }
            stop();
            throw;
        }
    }
    mark(trace_, StartStep::Threads);
}

bool Machine::wait(std::chrono::milliseconds d) {
    std::unique_lock lk(mu_);
    return cv_.wait_for(lk, d, [this] { return running_ == 0 || bsp_done_; });
}

void Machine::stop() {
    // KVM_RUN returns at once with immediate_exit or a signal; a thread that
    // has not ended after this long is stuck outside KVM_RUN.
    constexpr auto kDeadline = std::chrono::seconds(5);
    stop_.store(true);
    auto all_ended = [this](std::chrono::milliseconds d) {
        std::unique_lock lk(mu_);
        return cv_.wait_for(lk, d, [this] { return running_ == 0; });
    };
    auto give_up = std::chrono::steady_clock::now() + kDeadline;
    while (!all_ended(std::chrono::milliseconds(0))) {
        for (uint32_t i = 0; i < threads_.size(); ++i) {
            vcpus_[i].set_immediate_exit();
            pthread_kill(threads_[i].native_handle(), kKickSignal);
        }
        if (all_ended(std::chrono::milliseconds(50))) break;
        if (std::chrono::steady_clock::now() > give_up) {
            std::lock_guard lk(mu_);
            throw HostError(fmt::format("{} vCPU thread(s) did not stop within {} s", running_,
                                                 kDeadline.count()));
        }
    }
    for (auto& t : threads_)
        if (t.joinable()) t.join();
    threads_.clear();
}

void Machine::vcpu_loop(uint32_t i) {
    tids_[i].store(gettid(), std::memory_order_release);
    auto& out = outcomes_[i];
    try {
        if (i < pin_.size() && pin_[i] >= 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(pin_[i], &set);
            if (int e = pthread_setaffinity_np(pthread_self(), sizeof set, &set))
                throw kvm::Error(fmt::format("pin vCPU {} to host CPU {}", i, pin_[i]), e);
        }
        auto& v = vcpus_[i];
        auto& times = times_[i];
        // The previous exit, timed once the next KVM_RUN has returned: from
        // KVM_RUN's return (t0) to the next KVM_RUN, both stamped by enter().
        bool timed = false;
        uint64_t t0 = 0;
        if (trace_ && i == 0) trace_->first_run = StartTrace::Clock::now();
        for (;;) {
            if (stop_.load(std::memory_order_relaxed)) {
                out.kind = VcpuOutcome::Kicked;
                break;
            }
            bool exited = v.enter();  // false: a kick, no exit to answer
            if (timed) times.record(v.entered_tsc() - t0);
            t0 = v.returned_tsc();
            kvm_run& run = v.exit_area();
            timed = exited && is_test_exit(run);
            Action a = exited ? handle(i, run) : Action::Resume;
            if (a == Action::Stop) {
                if (out.kind == VcpuOutcome::Running) out.kind = VcpuOutcome::Stopped;
                break;
            }
        }
    } catch (const std::exception& e) {
        out.kind = VcpuOutcome::Error;
        out.detail = e.what();
    }
    std::lock_guard lk(mu_);
    --running_;
    if (i == 0) bsp_done_ = true;
    cv_.notify_all();
}

uint64_t Machine::hypercall_exits() const {
    uint64_t n = 0;
    for (uint32_t i = 0; i < nr_vcpus(); ++i) n += counts_[i].hypercalls.load(std::memory_order_relaxed);
    return n;
}

uint64_t Machine::msr_exits() const {
    uint64_t n = 0;
    for (uint32_t i = 0; i < nr_vcpus(); ++i) n += counts_[i].msrs.load(std::memory_order_relaxed);
    return n;
}

Action Machine::unexpected(uint32_t i, std::string what) {
    outcomes_[i].kind = VcpuOutcome::Unexpected;
    outcomes_[i].detail = std::move(what);
    return Action::Stop;
}

// One exit, whatever the string count: hits count exits, not elements.
Action Machine::pio(uint32_t i, kvm_run& run) {
    const auto& io = run.io;
    bool write = io.direction == KVM_EXIT_IO_OUT;
    auto* r = pio_.routes(i).find(io.port);
    if (!r)
        return unexpected(i, fmt::format("KVM_EXIT_IO {} port {:#x} size {} with no device",
                                         write ? "out" : "in", io.port, io.size));
    IoRoutes::hit(*r);
    auto data = kvm::io_data(run);
    Action a = Action::Resume;
    for (uint32_t k = 0; k < io.count && a == Action::Resume; ++k)
        a = (*r)({i, io.port, write, data.subspan(size_t(k) * io.size, io.size)});
    return a;
}

Action Machine::mmio(uint32_t i, kvm_run& run) {
    const auto& m = run.mmio;
    auto* r = mmio_.routes(i).find(m.phys_addr);
    if (!r)
        return unexpected(i, fmt::format("KVM_EXIT_MMIO {} {:#x} len {} with no device",
                                         m.is_write ? "write" : "read", m.phys_addr, kvm::mmio_data(run).size()));
    IoRoutes::hit(*r);
    return (*r)({i, m.phys_addr, m.is_write != 0, kvm::mmio_data(run)});
}

Action Machine::handle(uint32_t i, kvm_run& run) {
    switch (run.exit_reason) {
    case KVM_EXIT_IO: return pio(i, run);
    case KVM_EXIT_MMIO: return mmio(i, run);
    case KVM_EXIT_X86_RDMSR:  // only MSRs the filter denies
        bump(counts_[i].msrs);
        run.msr.data = 0;
        run.msr.error = 0;
        return Action::Resume;
    case KVM_EXIT_X86_WRMSR:
        bump(counts_[i].msrs);
        run.msr.error = 0;
        return Action::Resume;
    case KVM_EXIT_HYPERCALL:  // only those enabled with KVM_CAP_EXIT_HYPERCALL
        bump(counts_[i].hypercalls);
        run.hypercall.ret = 0;
        return Action::Resume;
    default: return rare_exit(i, run);
    }
}

// Every other exit stops the vCPU, saying what it was.
Action Machine::rare_exit(uint32_t i, kvm_run& run) {
    switch (run.exit_reason) {
    case KVM_EXIT_SHUTDOWN: return unexpected(i, "KVM_EXIT_SHUTDOWN (triple fault)");
    case KVM_EXIT_FAIL_ENTRY:
        return unexpected(i, fmt::format("KVM_EXIT_FAIL_ENTRY, hardware reason {:#x}",
                                         run.fail_entry.hardware_entry_failure_reason));
    case KVM_EXIT_INTERNAL_ERROR:
        return unexpected(i, fmt::format("KVM_EXIT_INTERNAL_ERROR, suberror {}, data [{:#x}]", run.internal.suberror,
                                         fmt::join(kvm::internal_error_data(run), ", ")));
    default: return unexpected(i, kvm_exit_label(run.exit_reason));  // KVM_EXIT_HLT among them
    }
}

std::string Machine::registers(uint32_t i) {
    try {
        auto r = vcpus_[i].regs();
        auto s = vcpus_[i].sregs();
        return fmt::format("rip={:#x} rsp={:#x} rflags={:#x} rax={:#x} rbx={:#x} rcx={:#x} "
                           "rdx={:#x} rsi={:#x} rdi={:#x} cr0={:#x} cr2={:#x} cr3={:#x} cr4={:#x} "
                           "efer={:#x}",
                           r.rip, r.rsp, r.rflags, r.rax, r.rbx, r.rcx, r.rdx, r.rsi, r.rdi, s.cr0,
                           s.cr2, s.cr3, s.cr4, s.efer);
    } catch (const std::exception& e) {
        return std::string("registers unreadable: ") + e.what();
    }
}

} // namespace eb::vmm
