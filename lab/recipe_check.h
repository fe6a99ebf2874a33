// A recipe's preconditions: what the host must offer for its question to be
// answerable (VMX or SVM, CPUID bits offered to guests, the host's SPEC_CTRL,
// load_IA32_EFER, APIC virtualization, enough host CPUs for --smp N).
// Checked against the host facts a run records (env/host_env.h) and KVM's
// supported CPUID, so the rules are pure and unit-tested.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <linux/kvm.h>

#include "env/host_env.h"
#include "suite/compare.h"
#include "vmm/host.h"

namespace eb::lab {

struct RecipeHost {
    vmm::Backend backend = vmm::Backend::Unknown;
    std::string backend_module;
    int host_cpus = 0;
    std::vector<kvm_cpuid_entry2> cpuid;  // KVM_GET_SUPPORTED_CPUID
    env::Facts facts;
};

struct NeedCheck {
    std::string need;                   // as the recipe names it
    std::string what;                   // what it means, for people
    std::optional<std::string> unmet;   // nullopt: met; else why not, on this host
    std::string seen;                   // what the host has, when known ("0x401", "Y")
};

// Every need's meaning, for `recipe show`; nullopt for a name no rule knows.
std::optional<std::string> need_description(const std::string& need);
// All the names, for the recipe files' test.
std::vector<std::string> known_needs();

// `max_smp`: the largest --smp of the recipe's configurations (1 without).
std::vector<NeedCheck> check_needs(const std::vector<std::string>& needs, uint32_t max_smp, const RecipeHost& h);

// The facts of this host (KVM opened by the caller).
RecipeHost probe_recipe_host(std::vector<kvm_cpuid_entry2> supported_cpuid);

// A recipe's comparison with its unmet needs, and the knobs the guest did not
// read back, as its reasons: "not answerable" if there are any.
void mark_unanswerable(suite::ComparisonReport& cmp, std::vector<std::string> unmet);

} // namespace eb::lab
