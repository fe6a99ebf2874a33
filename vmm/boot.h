// 64-bit boot state built by the host: page tables, GDT/TSS/IDT, and the
// registers each vCPU starts with. The guest runs no boot code of its own.
#pragma once
#include <cstdint>
#include <vector>

#include <linux/kvm.h>

#include "kvm/system.h"
#include "vmm/image.h"
#include "vmm/memory.h"

namespace eb::vmm {

struct GuestCpuState {
    bool efer_nx = true;   // most hosts run with NX; matching it is the default
    bool efer_sce = true;
};

// Identity map of 0-4 GiB with 2 MiB pages; the top GiB (MMIO) uncached.
void write_page_tables(GuestMemory& mem);
void write_descriptor_tables(GuestMemory& mem, const GuestImage& image, uint32_t nr_vcpus);
kvm_sregs long_mode_sregs(const kvm_sregs& initial, uint32_t vcpu, const GuestCpuState& st);
kvm_regs entry_regs(const GuestImage& image, uint32_t vcpu);
// The supported CPUID table, made per vCPU (APIC ids).
std::vector<kvm_cpuid_entry2> vcpu_cpuid(std::vector<kvm_cpuid_entry2> supported, uint32_t vcpu);
// What the guest is offered: KVM's supported table (asked once per process)
// plus the bits a VMM must add itself (TSC-deadline, which KVM emulates but
// older kernels do not list).
std::vector<kvm_cpuid_entry2> guest_cpuid(const kvm::System& sys);

} // namespace eb::vmm
