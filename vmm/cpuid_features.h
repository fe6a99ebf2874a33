// CPUID feature bits (guest/cpuid_bits.h) in KVM's CPUID tables, and the
// --cpuid edits of them.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <linux/kvm.h>

#include "guest/cpuid_bits.h"

namespace eb::vmm {

std::optional<cpuid::Feature> find_cpuid_feature(const std::string& name);
// The feature's register in a table entry.
uint32_t& cpuid_reg(kvm_cpuid_entry2& e, cpuid::Reg reg);
uint32_t cpuid_reg(const kvm_cpuid_entry2& e, cpuid::Reg reg);
// False also when the table lacks the leaf.
bool cpuid_bit(const std::vector<kvm_cpuid_entry2>& table, const cpuid::Feature& f);
// Sets or clears a bit; false if the table has no such leaf.
bool set_cpuid_bit(std::vector<kvm_cpuid_entry2>& table, const cpuid::Feature& f, bool on);
// "TSC_DEADLINE" for "tsc-deadline": the spelling of the SDM and of messages.
std::string cpuid_macro_name(const cpuid::Feature& f);

struct CpuidEdit {
    cpuid::Feature feature;
    bool on;
};
// "+x2apic,-rtm": throws std::invalid_argument naming the bad item.
std::vector<CpuidEdit> parse_cpuid_edits(const std::string& spec);
// Applies edits to what KVM supports; exposing a bit KVM cannot offer throws.
void apply_cpuid_edits(std::vector<kvm_cpuid_entry2>& table, const std::vector<CpuidEdit>& edits,
                       const std::vector<kvm_cpuid_entry2>& supported);

} // namespace eb::vmm
