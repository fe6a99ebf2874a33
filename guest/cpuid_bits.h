// CPUID feature bits by name: the one table that --cpuid, the tests'
// requirements, the VMM's guest CPUID and the guest's own checks all use.
// Freestanding, like abi.h, so the guest includes it too.
#pragma once
#include <stdint.h>

namespace eb::cpuid {

// In the order CPUID returns them, so a Reg indexes a uint32_t[4] result.
enum Reg : uint8_t { kEax, kEbx, kEcx, kEdx };

struct Feature {
    const char* name;  // as --cpuid takes it
    uint32_t leaf, sub;
    Reg reg;
    uint8_t bit;
};

inline constexpr Feature kMonitor{"monitor", 1, 0, kEcx, 3};
inline constexpr Feature kPcid{"pcid", 1, 0, kEcx, 17};
inline constexpr Feature kX2apic{"x2apic", 1, 0, kEcx, 21};
inline constexpr Feature kTscDeadline{"tsc-deadline", 1, 0, kEcx, 24};
inline constexpr Feature kXsave{"xsave", 1, 0, kEcx, 26};
inline constexpr Feature kHypervisor{"hypervisor", 1, 0, kEcx, 31};
inline constexpr Feature kHle{"hle", 7, 0, kEbx, 4};
inline constexpr Feature kInvpcid{"invpcid", 7, 0, kEbx, 10};
inline constexpr Feature kRtm{"rtm", 7, 0, kEbx, 11};
inline constexpr Feature kRdpid{"rdpid", 7, 0, kEcx, 22};
inline constexpr Feature kMdClear{"md-clear", 7, 0, kEdx, 10};
inline constexpr Feature kSpecCtrl{"spec-ctrl", 7, 0, kEdx, 26};
inline constexpr Feature kStibp{"stibp", 7, 0, kEdx, 27};
inline constexpr Feature kArchCapabilities{"arch-capabilities", 7, 0, kEdx, 29};
inline constexpr Feature kSsbd{"ssbd", 7, 0, kEdx, 31};
inline constexpr Feature kBhiCtrl{"bhi-ctrl", 7, 2, kEdx, 4};
inline constexpr Feature kNx{"nx", 0x80000001, 0, kEdx, 20};
inline constexpr Feature kRdtscp{"rdtscp", 0x80000001, 0, kEdx, 27};
inline constexpr Feature kAmdIbpb{"amd-ibpb", 0x80000008, 0, kEbx, 12};
inline constexpr Feature kAmdIbrs{"amd-ibrs", 0x80000008, 0, kEbx, 14};

inline constexpr Feature kAll[] = {
    kMonitor, kPcid, kX2apic, kTscDeadline, kXsave, kHypervisor, kHle, kInvpcid, kRtm, kRdpid,
    kMdClear, kSpecCtrl, kStibp, kArchCapabilities, kSsbd, kBhiCtrl, kNx, kRdtscp, kAmdIbpb, kAmdIbrs,
};

// Whether a CPUID result (eax..edx) has the feature's bit.
inline constexpr bool has(const Feature& f, const uint32_t r[4]) { return (r[f.reg] >> f.bit) & 1; }

} // namespace eb::cpuid
