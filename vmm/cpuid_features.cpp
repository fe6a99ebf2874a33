#include "vmm/cpuid_features.h"
#include "sys/error.h"

#include <cctype>
#include <sstream>
#include <stdexcept>

namespace eb::vmm {

std::optional<cpuid::Feature> find_cpuid_feature(const std::string& name) {
    std::string n = name;
    for (auto& c : n)
        if (c == '_') c = '-';
    for (const auto& f : cpuid::kAll)
        if (n == f.name) return f;
    return std::nullopt;
}

namespace {
// The one register switch, for const and mutable entries alike.
template <class Entry>
auto& reg_of(Entry& e, cpuid::Reg reg) {
    switch (reg) {
    case cpuid::kEax: return e.eax;
    case cpuid::kEbx: return e.ebx;
    case cpuid::kEcx: return e.ecx;
    case cpuid::kEdx: break;
    }
    return e.edx;
}
} // namespace

uint32_t& cpuid_reg(kvm_cpuid_entry2& e, cpuid::Reg reg) { return reg_of(e, reg); }
uint32_t cpuid_reg(const kvm_cpuid_entry2& e, cpuid::Reg reg) { return reg_of(e, reg); }

namespace {
const kvm_cpuid_entry2* entry(const std::vector<kvm_cpuid_entry2>& t, const cpuid::Feature& f) {
    for (const auto& e : t)
        if (e.function == f.leaf && e.index == f.sub) return &e;
    return nullptr;
}
} // namespace

bool cpuid_bit(const std::vector<kvm_cpuid_entry2>& table, const cpuid::Feature& f) {
    const auto* e = entry(table, f);
    return e && ((cpuid_reg(*e, f.reg) >> f.bit) & 1);
}

bool set_cpuid_bit(std::vector<kvm_cpuid_entry2>& table, const cpuid::Feature& f, bool on) {
    for (auto& e : table)
        if (e.function == f.leaf && e.index == f.sub) {
            uint32_t& r = cpuid_reg(e, f.reg);
            r = on ? (r | (1u << f.bit)) : (r & ~(1u << f.bit));
            return true;
        }
    return false;
}

std::string cpuid_macro_name(const cpuid::Feature& f) {
    std::string n = f.name;
    for (auto& c : n) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return n;
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
            throw InputError("--cpuid takes +feature, -feature or feature=on|off items, not '" + item + "'");
        }
        auto f = find_cpuid_feature(name);
        if (!f) {
            std::string names;
            for (const auto& k : cpuid::kAll) names += std::string(names.empty() ? "" : ", ") + k.name;
            throw InputError("--cpuid: unknown feature '" + name + "' (known: " + names + ")");
        }
        out.push_back({*f, on});
    }
    if (out.empty()) throw InputError("--cpuid needs at least one +feature or -feature");
    return out;
}

void apply_cpuid_edits(std::vector<kvm_cpuid_entry2>& table, const std::vector<CpuidEdit>& edits,
                       const std::vector<kvm_cpuid_entry2>& supported) {
    for (const auto& e : edits) {
        if (e.on && !cpuid_bit(supported, e.feature))
            throw InputError(std::string("--cpuid +") + e.feature.name +
                                        ": KVM cannot offer it to guests on this host");
        set_cpuid_bit(table, e.feature, e.on);
    }
}

} // namespace eb::vmm
