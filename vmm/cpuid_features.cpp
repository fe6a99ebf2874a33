#include "vmm/cpuid_features.h"

#include <sstream>
#include <stdexcept>

namespace eb::vmm {

const std::vector<CpuidFeature>& cpuid_features() {
    static const std::vector<CpuidFeature> f = {
        {"monitor", 1, 0, 2, 3},        {"pcid", 1, 0, 2, 17},
        {"x2apic", 1, 0, 2, 21},        {"tsc-deadline", 1, 0, 2, 24},
        {"xsave", 1, 0, 2, 26},         {"hypervisor", 1, 0, 2, 31},
        {"hle", 7, 0, 1, 4},            {"invpcid", 7, 0, 1, 10},
        {"rtm", 7, 0, 1, 11},           {"rdpid", 7, 0, 2, 22},
        {"md-clear", 7, 0, 3, 10},      {"spec-ctrl", 7, 0, 3, 26},
        {"stibp", 7, 0, 3, 27},         {"arch-capabilities", 7, 0, 3, 29},
        {"ssbd", 7, 0, 3, 31},          {"bhi-ctrl", 7, 2, 3, 4},
        {"nx", 0x80000001, 0, 3, 20},   {"rdtscp", 0x80000001, 0, 3, 27},
        {"amd-ibpb", 0x80000008, 0, 1, 12}, {"amd-ibrs", 0x80000008, 0, 1, 14},
    };
    return f;
}

std::optional<CpuidFeature> find_cpuid_feature(const std::string& name) {
    std::string n = name;
    for (auto& c : n)
        if (c == '_') c = '-';
    for (const auto& f : cpuid_features())
        if (n == f.name) return f;
    return std::nullopt;
}

namespace {
uint32_t* reg_of(kvm_cpuid_entry2& e, int reg) {
    return reg == 0 ? &e.eax : reg == 1 ? &e.ebx : reg == 2 ? &e.ecx : &e.edx;
}
kvm_cpuid_entry2* entry(std::vector<kvm_cpuid_entry2>& t, const CpuidFeature& f) {
    for (auto& e : t)
        if (e.function == f.leaf && e.index == f.sub) return &e;
    return nullptr;
}
} // namespace

bool cpuid_bit(const std::vector<kvm_cpuid_entry2>& table, const CpuidFeature& f) {
    for (const auto& e : table)
        if (e.function == f.leaf && e.index == f.sub) {
            uint32_t v = f.reg == 0 ? e.eax : f.reg == 1 ? e.ebx : f.reg == 2 ? e.ecx : e.edx;
            return (v >> f.bit) & 1;
        }
    return false;
}

bool set_cpuid_bit(std::vector<kvm_cpuid_entry2>& table, const CpuidFeature& f, bool on) {
    auto* e = entry(table, f);
    if (!e) return false;
    uint32_t* r = reg_of(*e, f.reg);
    *r = on ? (*r | (1u << f.bit)) : (*r & ~(1u << f.bit));
    return true;
}

std::vector<CpuidEdit> parse_cpuid_edits(const std::string& spec) {
    std::vector<CpuidEdit> out;
    std::stringstream ss(spec);
    std::string item;
    while (std::getline(ss, item, ',')) {
        // "+name" / "-name", or "name=on" / "name=off" where a leading '-' is awkward.
        bool on;
        std::string name;
        if (auto eq = item.find('='); eq != std::string::npos && (item.substr(eq + 1) == "on" || item.substr(eq + 1) == "off")) {
            on = item.substr(eq + 1) == "on";
            name = item.substr(0, eq);
        } else if (item.size() >= 2 && (item[0] == '+' || item[0] == '-')) {
            on = item[0] == '+';
            name = item.substr(1);
        } else {
            throw std::invalid_argument("--cpuid takes +feature, -feature or feature=on|off items, not '" + item + "'");
        }
        auto f = find_cpuid_feature(name);
        if (!f) {
            std::string names;
            for (const auto& k : cpuid_features()) names += std::string(names.empty() ? "" : ", ") + k.name;
            throw std::invalid_argument("--cpuid: unknown feature '" + name + "' (known: " + names + ")");
        }
        out.push_back({*f, on});
    }
    if (out.empty()) throw std::invalid_argument("--cpuid needs at least one +feature or -feature");
    return out;
}

void apply_cpuid_edits(std::vector<kvm_cpuid_entry2>& table, const std::vector<CpuidEdit>& edits,
                       const std::vector<kvm_cpuid_entry2>& supported) {
    for (const auto& e : edits) {
        if (e.on && !cpuid_bit(supported, e.feature))
            throw std::invalid_argument(std::string("--cpuid +") + e.feature.name +
                                        ": KVM cannot offer it to guests on this host");
        set_cpuid_bit(table, e.feature, e.on);
    }
}

} // namespace eb::vmm
