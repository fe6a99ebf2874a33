#include "suite/spec.h"

#include <fmt/format.h>

#include "guest/abi.h"
#include "vmm/cpuid_features.h"

namespace eb::suite {

const char* exit_kind_name(ExitKind k) {
    switch (k) {
    case ExitKind::None: return "none";
    case ExitKind::Kernel: return "kernel";
    case ExitKind::UserIo: return "user-io";
    case ExitKind::UserMmio: return "user-mmio";
    case ExitKind::UserHypercall: return "user-hypercall";
    case ExitKind::UserMsr: return "user-msr";
    }
    return "?";
}

std::string Expect::describe() const {
    if (kind == ExitKind::None) return "no exit";
    std::string n = fmt::format("{:g}", per_iter);
    if (max_per_iter > per_iter) n += fmt::format("-{:g}", max_per_iter);
    std::string out = fmt::format("{} {} exit{}", n, exit_kind_name(kind),
                                  per_iter == 1 && max_per_iter <= 1 ? "" : "s");
    if (irqs_per_iter) out += fmt::format(", {:g} irq", *irqs_per_iter);
    return out;
}

std::optional<std::string> TestSpec::body_for(const HostContext& h) const {
    switch (h.vendor) {
    case vmm::Vendor::Intel: return body.intel;
    case vmm::Vendor::Amd: return body.amd;
    case vmm::Vendor::Other: break;
    }
    if (body.intel == body.amd) return body.intel;
    return std::nullopt;
}

std::optional<std::string> TestSpec::skip_reason(const HostContext& h) const {
    for (const auto& r : needs)
        if (auto why = r.unmet(h)) return why;
    return std::nullopt;
}

Requirement known_vendor() {
    return {"Intel or AMD guest CPU", [](const HostContext& h) -> std::optional<std::string> {
                if (h.vendor == vmm::Vendor::Other)
                    return "guest CPU vendor is neither Intel nor AMD: no hypercall instruction to pick";
                return std::nullopt;
            }};
}

Requirement capability(kvm::Cap cap) {
    return {cap.name, [cap](const HostContext& h) -> std::optional<std::string> {
                if (h.sys && !h.sys->has(cap)) return std::string("host lacks ") + cap.name;
                return std::nullopt;
            }};
}

Requirement cpuid_any(std::vector<cpuid::Feature> features) {
    std::string what;
    for (const auto& f : features) what += (what.empty() ? "" : " or ") + vmm::cpuid_macro_name(f);
    return {"CPUID " + what, [features, what](const HostContext& h) -> std::optional<std::string> {
                for (const auto& f : features)
                    if (vmm::cpuid_bit(h.cpuid, f)) return std::nullopt;
                return "KVM does not offer CPUID " + what + " to guests";
            }};
}

Requirement invd_opt_in() {
    return {"--allow-invd", [](const HostContext& h) -> std::optional<std::string> {
                if (h.allow_invd) return std::nullopt;
                return "INVD drops caches without writing them back; run with --allow-invd";
            }};
}

Requirement x2apic_mode() {
    return {"x2APIC mode", [](const HostContext& h) -> std::optional<std::string> {
                if (h.apic_mode == abi::kX2apic) return std::nullopt;
                return "the APIC runs in xAPIC mode; x2APIC tests need --apic x2apic (or auto, "
                       "where KVM offers x2APIC)";
            }};
}

} // namespace eb::suite
