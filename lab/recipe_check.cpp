#include "lab/recipe_check.h"

#include <fmt/format.h>
#include <functional>

#include "guest/cpuid_bits.h"
#include "vmm/cpuid_features.h"

namespace eb::lab {

namespace {

constexpr const char* kCpuidPrefix = "cpuid:";
constexpr uint64_t kBhiDisS = 1u << 10;
constexpr uint64_t kEferSce = 1u << 0, kEferNx = 1u << 11;

const std::string* fact(const RecipeHost& h, const std::string& key) {
    for (const auto& [k, v] : h.facts)
        if (k == key) return &v;
    return nullptr;
}

// A fact as a number; nullopt with `why` set when absent or unreadable.
std::optional<uint64_t> fact_number(const RecipeHost& h, const std::string& key, std::string& why) {
    const auto* v = fact(h, key);
    if (!v) {
        why = key + " was not recorded";
        return std::nullopt;
    }
    try {
        size_t end = 0;
        uint64_t n = std::stoull(*v, &end, 0);
        if (end == v->size()) return n;
    } catch (const std::exception&) {
    }
    why = key + " " + *v;
    return std::nullopt;
}

// "Y", "1": a KVM module parameter that is on.
bool param_on(const RecipeHost& h, const std::string& module, const std::string& param) {
    const auto* v = fact(h, "kvm.param." + module + "." + param);
    return v && (*v == "Y" || *v == "1");
}

const char* backend_text(const RecipeHost& h) {
    return h.backend_module.empty() ? vmm::backend_name(h.backend) : h.backend_module.c_str();
}

using Rule = std::function<std::optional<std::string>(const RecipeHost&, uint32_t, std::string& seen)>;
struct Need {
    const char* name;
    const char* what;
    Rule unmet;
};

std::optional<std::string> need_vmx(const RecipeHost& h, uint32_t, std::string& seen) {
    seen = backend_text(h);
    if (h.backend == vmm::Backend::Vmx) return std::nullopt;
    return fmt::format("needs VMX (kvm_intel); /dev/kvm is {}", backend_text(h));
}

std::optional<std::string> need_vmx_or_svm(const RecipeHost& h, uint32_t, std::string& seen) {
    seen = backend_text(h);
    if (h.backend == vmm::Backend::Vmx || h.backend == vmm::Backend::Svm) return std::nullopt;
    return fmt::format("needs VMX or SVM (kvm_intel or kvm_amd); /dev/kvm is {}", backend_text(h));
}

std::optional<std::string> need_spec_ctrl(const RecipeHost& h, uint32_t, std::string& seen) {
    std::string why;
    auto v = fact_number(h, "msr.spec_ctrl.cpu0", why);
    if (!v) return "the host's SPEC_CTRL is unknown: " + why;
    seen = fmt::format("{:#x}", *v);
    for (int c = 1; c < h.host_cpus; ++c)
        if (auto o = fact_number(h, fmt::format("msr.spec_ctrl.cpu{}", c), why); o && *o != *v)
            return fmt::format("the host's SPEC_CTRL differs between CPUs ({:#x} on CPU 0, {:#x} on CPU {})", *v, *o, c);
    return std::nullopt;
}

std::optional<std::string> need_bhi_dis_s(const RecipeHost& h, uint32_t n, std::string& seen) {
    if (auto why = need_spec_ctrl(h, n, seen)) return why;
    std::string ignored;
    if (*fact_number(h, "msr.spec_ctrl.cpu0", ignored) & kBhiDisS) return std::nullopt;
    return fmt::format("the host's SPEC_CTRL is {} without BHI_DIS_S (bit 10): the seed's host ran with 0x401 "
                       "(spectre_bhi=on)", seen);
}

std::optional<std::string> need_host_efer(const RecipeHost& h, uint32_t, std::string& seen) {
    std::string why;
    auto v = fact_number(h, "msr.efer.cpu0", why);
    if (!v) return "the host's EFER is unknown: " + why;
    seen = fmt::format("{:#x}", *v);
    if ((*v & (kEferNx | kEferSce)) == (kEferNx | kEferSce)) return std::nullopt;
    return fmt::format("the host's EFER {} lacks NX or SCE; the seed's cases are relative to a host with both", seen);
}

std::optional<std::string> need_load_efer(const RecipeHost& h, uint32_t n, std::string& seen) {
    if (auto why = need_vmx(h, n, seen)) return "load_IA32_EFER is a VMX control: " + *why;
    std::string why;
    auto entry = fact_number(h, "msr.vmx_true_entry_ctls.cpu0", why);
    auto exit = entry ? fact_number(h, "msr.vmx_true_exit_ctls.cpu0", why) : std::nullopt;
    if (!entry || !exit) return "the VMX controls are unknown: " + why;
    // Allowed-1 settings are the high halves: entry bit 15, exit bit 21.
    bool on = (*entry >> 32 & 1u << 15) && (*exit >> 32 & 1u << 21);
    seen = on ? "entry and exit load IA32_EFER" : "no load_IA32_EFER";
    if (on) return std::nullopt;
    return "this CPU cannot load IA32_EFER on VM entry and exit, so KVM switches EFER with the MSR-load lists";
}

std::optional<std::string> need_apicv(const RecipeHost& h, uint32_t, std::string& seen) {
    bool on = param_on(h, "kvm_intel", "enable_apicv") || param_on(h, "kvm_amd", "avic");
    seen = on ? "on" : "off";
    if (on) return std::nullopt;
    return fmt::format("needs APICv (kvm_intel.enable_apicv=Y) or AVIC (kvm_amd.avic=1); {} has neither on",
                       backend_text(h));
}

std::optional<std::string> need_ipi_exits(const RecipeHost& h, uint32_t n, std::string& seen) {
    if (auto why = need_vmx_or_svm(h, n, seen)) return why;
    bool virt = param_on(h, "kvm_intel", "enable_ipiv") || param_on(h, "kvm_amd", "avic");
    seen = virt ? "IPI virtualization on" : "ICR writes exit";
    if (!virt) return std::nullopt;
    return "IPI virtualization (IPIv or AVIC) is on: the ICR write does not exit, so KVM's IPI path never runs";
}

std::optional<std::string> need_smp_cpus(const RecipeHost& h, uint32_t max_smp, std::string& seen) {
    seen = fmt::format("{} CPUs", h.host_cpus);
    if (uint32_t(std::max(h.host_cpus, 0)) >= max_smp + 1) return std::nullopt;
    return fmt::format("--smp {} needs at least {} host CPUs (one per vCPU and one for the host), this host has {}",
                       max_smp, max_smp + 1, h.host_cpus);
}

const std::vector<Need>& needs() {
    static const std::vector<Need> n = {
        {"vmx", "VMX (kvm_intel): the mechanism is VMX code", need_vmx},
        {"vmx_or_svm", "VMX or SVM (kvm_intel or kvm_amd): a hardware exit", need_vmx_or_svm},
        {"host_spec_ctrl", "the host's SPEC_CTRL, read on every CPU (msr module), the same on all", need_spec_ctrl},
        {"host_bhi_dis_s", "the host's SPEC_CTRL has BHI_DIS_S (0x400), as the seed's 0x401", need_bhi_dis_s},
        {"host_efer", "the host's EFER has NX and SCE, as Linux sets them", need_host_efer},
        {"load_efer", "VMX can load IA32_EFER on entry and exit (the TRUE entry/exit controls)", need_load_efer},
        {"apicv", "APICv or AVIC on", need_apicv},
        {"ipi_exits", "ICR writes exit (no IPIv, no AVIC), so KVM's IPI path runs", need_ipi_exits},
        {"smp_cpus", "at least N+1 host CPUs for --smp N", need_smp_cpus},
    };
    return n;
}

const cpuid::Feature* cpuid_need(const std::string& need) {
    if (need.rfind(kCpuidPrefix, 0) != 0) return nullptr;
    for (const auto& f : cpuid::kAll)
        if (need.substr(std::string(kCpuidPrefix).size()) == f.name) return &f;
    return nullptr;
}

} // namespace

std::optional<std::string> need_description(const std::string& need) {
    if (const auto* f = cpuid_need(need)) return fmt::format("KVM offers CPUID {} to guests", vmm::cpuid_macro_name(*f));
    for (const auto& n : needs())
        if (need == n.name) return std::string(n.what);
    return std::nullopt;
}

std::vector<std::string> known_needs() {
    std::vector<std::string> out;
    for (const auto& n : needs()) out.emplace_back(n.name);
    for (const auto& f : cpuid::kAll) out.push_back(std::string(kCpuidPrefix) + f.name);
    return out;
}

std::vector<NeedCheck> check_needs(const std::vector<std::string>& names, uint32_t max_smp, const RecipeHost& h) {
    std::vector<NeedCheck> out;
    for (const auto& name : names) {
        NeedCheck c{name, need_description(name).value_or("unknown precondition"), {}, {}};
        if (const auto* f = cpuid_need(name)) {
            bool on = vmm::cpuid_bit(h.cpuid, *f);
            c.seen = on ? "offered" : "not offered";
            if (!on) c.unmet = fmt::format("KVM does not offer CPUID {} to guests", vmm::cpuid_macro_name(*f));
        } else {
            c.unmet = "no rule checks the precondition '" + name + "'";
            for (const auto& n : needs())
                if (name == n.name) c.unmet = n.unmet(h, max_smp, c.seen);
        }
        out.push_back(std::move(c));
    }
    return out;
}

RecipeHost probe_recipe_host(std::vector<kvm_cpuid_entry2> supported_cpuid) {
    auto facts = vmm::probe_host(std::nullopt);
    RecipeHost h;
    h.backend = facts.backend;
    h.backend_module = facts.backend_module;
    h.host_cpus = facts.host_cpus;
    h.cpuid = std::move(supported_cpuid);
    h.facts = env::capture(facts);
    return h;
}

void mark_unanswerable(suite::ComparisonReport& cmp, std::vector<std::string> unmet) {
    for (auto& w : suite::knob_warnings(cmp)) unmet.push_back(std::move(w));
    suite::mark_not_answerable(cmp, std::move(unmet));
}

} // namespace eb::lab
