// CPUID feature bits by name, for --cpuid +name/-name.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <linux/kvm.h>

namespace eb::vmm {

struct CpuidFeature {
    const char* name;
    uint32_t leaf, sub;
    int reg;  // 0..3 = eax, ebx, ecx, edx
    int bit;
};

const std::vector<CpuidFeature>& cpuid_features();
std::optional<CpuidFeature> find_cpuid_feature(const std::string& name);
bool cpuid_bit(const std::vector<kvm_cpuid_entry2>& table, const CpuidFeature& f);
// Sets or clears a bit; false if the table has no such leaf.
bool set_cpuid_bit(std::vector<kvm_cpuid_entry2>& table, const CpuidFeature& f, bool on);

struct CpuidEdit {
    CpuidFeature feature;
    bool on;
};
// "+x2apic,-rtm": throws std::invalid_argument naming the bad item.
std::vector<CpuidEdit> parse_cpuid_edits(const std::string& spec);
// Applies edits to what KVM supports; exposing a bit KVM cannot offer throws.
void apply_cpuid_edits(std::vector<kvm_cpuid_entry2>& table, const std::vector<CpuidEdit>& edits,
                       const std::vector<kvm_cpuid_entry2>& supported);

} // namespace eb::vmm
