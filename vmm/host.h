// Facts about the host that a result must carry to be comparable.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace eb::vmm {

enum class Backend { Vmx, Svm, Pvm, Unknown };
const char* backend_name(Backend b);       // "vmx", "svm", "pvm", "unknown"
Backend backend_from_name(const std::string& s);

// The ISA whose exit codes kvm_exit reports: "vmx", "svm", or "unknown".
const char* exit_isa(Backend b);

// Which KVM implementation serves /dev/kvm, from the loaded modules.
Backend detect_backend();

enum class Vendor { Intel, Amd, Other };

struct HostFacts {
    std::string cpu_model;
    std::string cpu_vendor;       // CPUID leaf 0 string
    std::string kernel_release;
    Backend backend = Backend::Unknown;
    std::string backend_module;   // kvm_intel, kvm_amd, kvm_pvm
    double tsc_mhz = 0;           // the figure used for ns
    std::string tsc_source;       // how tsc_mhz was obtained
    double tsc_calibrated_mhz = 0;
    int host_cpus = 0;
};

Vendor vendor_of(const std::string& cpuid_vendor);
// CPUID leaf 0's vendor string ("GenuineIntel"), spelled by EBX, EDX, ECX.
std::string cpuid_vendor_string(uint32_t ebx, uint32_t ecx, uint32_t edx);

// `kvm_tsc_khz` is KVM_GET_TSC_KHZ of a vCPU, when available.
HostFacts probe_host(std::optional<uint64_t> kvm_tsc_khz);

// TSC ticks per microsecond, measured against CLOCK_MONOTONIC_RAW.
double calibrate_tsc_mhz(double seconds = 0.02);

} // namespace eb::vmm
