#include "vmm/boot.h"

#include <map>
#include <mutex>
#include <string>

#include "guest/abi.h"
#include "vmm/cpuid_features.h"

namespace eb::vmm {

namespace {

constexpr uint64_t kPresent = 1, kWrite = 2, kPwt = 8, kPcd = 16, kLarge = 0x80;

struct Tss64 {
    uint32_t reserved0;
    uint64_t rsp[3];
    uint64_t reserved1;
    uint64_t ist[7];
    uint64_t reserved2;
    uint16_t reserved3;
    uint16_t iomap_base;
} __attribute__((packed));
static_assert(sizeof(Tss64) == 104);
constexpr uint64_t kTssSlot = 128;

} // namespace

void write_page_tables(GuestMemory& mem) {
    auto* pml4 = mem.at<uint64_t>(abi::kPml4);
    auto* pdpt = mem.at<uint64_t>(abi::kPdpt);
    pml4[0] = abi::kPdpt | kPresent | kWrite;
    for (uint64_t gib = 0; gib < 4; ++gib) {
        uint64_t pd_gpa = abi::kPd + gib * 0x1000;
        pdpt[gib] = pd_gpa | kPresent | kWrite;
        auto* pd = mem.at<uint64_t>(pd_gpa);
        uint64_t cache = gib == 3 ? (kPcd | kPwt) : 0;
        for (uint64_t i = 0; i < 512; ++i)
            pd[i] = ((gib << 30) + (i << 21)) | kPresent | kWrite | kLarge | cache;
    }
}

void write_descriptor_tables(GuestMemory& mem, const GuestImage& image, uint32_t nr_vcpus) {
    auto* gdt = mem.at<uint64_t>(abi::kGdt);
    gdt[0] = 0;
    gdt[1] = 0x00af9b000000ffffull;  // 64-bit code, DPL0
    gdt[2] = 0x00cf93000000ffffull;  // data, DPL0
    for (uint32_t v = 0; v < nr_vcpus; ++v) {
        uint64_t base = abi::kTss + v * kTssSlot;
        auto* tss = mem.at<Tss64>(base);
        *tss = Tss64{};
        tss->rsp[0] = abi::stack_top(v);
        tss->iomap_base = sizeof(Tss64);
        uint64_t limit = sizeof(Tss64) - 1;
        uint64_t lo = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89ull << 40) |
                      (((base >> 24) & 0xff) << 56);
        size_t idx = (abi::kTssSel + 16 * v) / 8;
        gdt[idx] = lo;
        gdt[idx + 1] = base >> 32;
    }
    auto* idt = mem.at<uint64_t>(abi::kIdt);
    for (uint64_t v = 0; v < 256; ++v) {
        uint64_t off = image.header().isr_stubs + v * abi::kIsrStubSize;
        idt[2 * v] = (off & 0xffff) | (uint64_t(abi::kCodeSel) << 16) | (0x8eull << 40) |
                     (((off >> 16) & 0xffff) << 48);
        idt[2 * v + 1] = off >> 32;
    }
}

kvm_sregs long_mode_sregs(const kvm_sregs& initial, uint32_t vcpu, const GuestCpuState& st) {
    kvm_sregs s = initial;
    kvm_segment code{};
    code.base = 0;
    code.limit = 0xffffffff;
    code.selector = abi::kCodeSel;
    code.type = 11;
    code.present = 1;
    code.s = 1;
    code.l = 1;
    code.g = 1;
    kvm_segment data = code;
    data.selector = abi::kDataSel;
    data.type = 3;
    data.l = 0;
    data.db = 1;
    s.cs = code;
    s.ds = s.es = s.fs = s.gs = s.ss = data;
    s.gs.base = abi::mailbox_gpa(vcpu);  // the guest finds its mailbox at %gs:0

    s.tr = {};
    s.tr.base = abi::kTss + vcpu * kTssSlot;
    s.tr.limit = sizeof(Tss64) - 1;
    s.tr.selector = static_cast<uint16_t>(abi::kTssSel + 16 * vcpu);
    s.tr.type = 11;
    s.tr.present = 1;
    s.ldt = {};
    s.ldt.type = 2;
    s.ldt.present = 1;
    s.ldt.unusable = 1;

    s.gdt.base = abi::kGdt;
    s.gdt.limit = static_cast<uint16_t>(abi::kTssSel + 16 * abi::kMaxVcpus - 1);
    s.idt.base = abi::kIdt;
    s.idt.limit = 256 * 16 - 1;

    s.cr0 = 0x80050033;  // PG WP NE ET MP PE
    s.cr3 = abi::kPml4;
    s.cr4 = 0x620;       // OSXMMEXCPT OSFXSR PAE
    s.efer = 0x500;      // LMA LME
    if (st.efer_sce) s.efer |= 1;
    if (st.efer_nx) s.efer |= 1 << 11;
    return s;
}

kvm_regs entry_regs(const GuestImage& image, uint32_t vcpu) {
    kvm_regs r{};
    r.rip = image.header().entry;
    r.rsp = abi::stack_top(vcpu);
    r.rdi = vcpu;
    r.rflags = 2;
    return r;
}

std::vector<kvm_cpuid_entry2> guest_cpuid(const kvm::System& sys) {
    // KVM_GET_SUPPORTED_CPUID answers the same while the module is loaded:
    // asked once per process and device, not once per VM.
    static std::mutex mu;
    static std::map<std::string, std::vector<kvm_cpuid_entry2>> asked;
    std::vector<kvm_cpuid_entry2> table;
    {
        std::lock_guard lk(mu);
        auto it = asked.find(sys.path());
        if (it == asked.end()) it = asked.emplace(sys.path(), sys.supported_cpuid()).first;
        table = it->second;
    }
    // KVM emulates the TSC-deadline timer but leaves the bit to the VMM.
    if (sys.has(EB_CAP(TSC_DEADLINE_TIMER))) set_cpuid_bit(table, cpuid::kTscDeadline, true);
    return table;
}

std::vector<kvm_cpuid_entry2> vcpu_cpuid(std::vector<kvm_cpuid_entry2> table, uint32_t vcpu) {
    for (auto& e : table) {
        if (e.function == 1) e.ebx = (e.ebx & 0x00ffffff) | (vcpu << 24);
        if (e.function == 0xb || e.function == 0x1f) e.edx = vcpu;
    }
    return table;
}

} // namespace eb::vmm
