#include "suite/fixture.h"

#include <cerrno>
#include <fmt/format.h>
#include <sys/mman.h>

#include "kvm/error.h"

#include "guest/abi.h"
#include "vmm/devices.h"
#include "vmm/eventfd.h"

namespace eb::suite {

namespace {

class PmTimer : public Fixture {
public:
    void install(vmm::Machine& m) override { vmm::install_pm_timer(m); }
};

class TestDev : public Fixture {
public:
    TestDev(kvm::AddrSpace s, Delivery d) : space_(s), delivery_(d) {}

    void install(vmm::Machine& m) override {
        bool pio = space_ == kvm::AddrSpace::Pio;
        uint64_t addr = pio ? abi::kTestDevPort : abi::kTestDevMmio;
        // Writes that no ioeventfd takes still need a device.
        (pio ? m.pio() : m.mmio()).add("testdev", addr, pio ? 4 : 0x1000, vmm::write_sink());
        if (delivery_ == Delivery::ToUser) return;
        efd_.emplace();
        bool dm = delivery_ == Delivery::DatamatchEventfd;
        // An MMIO wildcard is KVM's zero-length "fast MMIO" eventfd, as pci-testdev uses.
        uint32_t len = !pio && !dm ? 0 : 4;
        m.vm().ioeventfd(efd_->fd(), space_, addr, len,
                         dm ? std::optional<uint64_t>(abi::kTestDevValue) : std::nullopt);
    }

    std::optional<Check> check(uint64_t writes) override {
        if (!efd_) return std::nullopt;
        uint64_t fired = efd_->take();
        return Check{fired == writes, fmt::format("ioeventfd fired {} times for {} guest writes", fired, writes)};
    }

private:
    kvm::AddrSpace space_;
    Delivery delivery_;
    std::optional<vmm::EventFd> efd_;
};

class HypercallExit : public Fixture {
public:
    void install(vmm::Machine& m) override {
        m.vm().enable_cap(KVM_CAP_EXIT_HYPERCALL, 1ull << 12);  // KVM_HC_MAP_GPA_RANGE
    }
};

class MsrFilter : public Fixture {
public:
    void install(vmm::Machine& m) override {
        m.vm().enable_cap(KVM_CAP_X86_USER_SPACE_MSR, KVM_MSR_EXIT_REASON_FILTER);
        kvm_msr_filter f{};
        f.flags = KVM_MSR_FILTER_DEFAULT_ALLOW;
        f.ranges[0].flags = KVM_MSR_FILTER_READ | KVM_MSR_FILTER_WRITE;
        f.ranges[0].nmsrs = 1;
        f.ranges[0].base = 0x3b;  // TSC_ADJUST
        f.ranges[0].bitmap = &deny_;
        m.vm().set_msr_filter(f);
    }

private:
    uint8_t deny_ = 0;  // bit clear: denied
};

class Npf : public Fixture {
public:
    ~Npf() override {
        if (mem_) ::munmap(mem_, abi::kNpfBytes);
    }
    void install(vmm::Machine& m) override {
        mem_ = ::mmap(nullptr, abi::kNpfBytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (mem_ == MAP_FAILED) {
            mem_ = nullptr;
            throw kvm::Error("mmap the NPF region", errno);
        }
        ::madvise(mem_, abi::kNpfBytes, MADV_NOHUGEPAGE);  // 4K mappings: one fault per page
        m.vm().set_user_memory_region(1, abi::kNpfRegion, abi::kNpfBytes, mem_);
    }
    // MADV_DONTNEED drops the pages; KVM's MMU notifier zaps their EPT/NPT entries.
    void between_batches() override { ::madvise(mem_, abi::kNpfBytes, MADV_DONTNEED); }

private:
    void* mem_ = nullptr;
};

} // namespace

FixtureFactory hypercall_exit_fixture() {
    return [] { return std::make_unique<HypercallExit>(); };
}
FixtureFactory msr_filter_fixture() {
    return [] { return std::make_unique<MsrFilter>(); };
}
FixtureFactory npf_fixture() {
    return [] { return std::make_unique<Npf>(); };
}

FixtureFactory pm_timer_fixture() {
    return [] { return std::make_unique<PmTimer>(); };
}

FixtureFactory testdev_fixture(kvm::AddrSpace space, Delivery delivery) {
    return [=] { return std::make_unique<TestDev>(space, delivery); };
}

} // namespace eb::suite
