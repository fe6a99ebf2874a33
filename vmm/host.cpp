#include "vmm/host.h"

#include <cmath>
#include <cpuid.h>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <x86intrin.h>

namespace eb::vmm {

namespace fs = std::filesystem;

const char* backend_name(Backend b) {
    switch (b) {
    case Backend::Vmx: return "vmx";
    case Backend::Svm: return "svm";
    case Backend::Pvm: return "pvm";
    case Backend::Unknown: break;
    }
    return "unknown";
}

const char* exit_isa(Backend b) {
    return b == Backend::Vmx ? "vmx" : b == Backend::Svm ? "svm" : "unknown";
}

Backend backend_from_name(const std::string& s) {
    for (auto b : {Backend::Vmx, Backend::Svm, Backend::Pvm})
        if (s == backend_name(b)) return b;
    return Backend::Unknown;
}

Backend detect_backend() {
    if (fs::exists("/sys/module/kvm_intel")) return Backend::Vmx;
    if (fs::exists("/sys/module/kvm_amd")) return Backend::Svm;
    if (fs::exists("/sys/module/kvm_pvm")) return Backend::Pvm;
    return Backend::Unknown;
}

Vendor vendor_of(const std::string& v) {
    if (v == "GenuineIntel") return Vendor::Intel;
    if (v == "AuthenticAMD" || v == "HygonGenuine") return Vendor::Amd;
    return Vendor::Other;
}

std::string cpuid_vendor_string(uint32_t ebx, uint32_t ecx, uint32_t edx) {
    char s[12];
    std::memcpy(s, &ebx, 4);
    std::memcpy(s + 4, &edx, 4);
    std::memcpy(s + 8, &ecx, 4);
    return {s, strnlen(s, sizeof s)};
}

// How far the calibration may stray from KVM's TSC rate before it is news.
constexpr double kTscAgreementPct = 1.0;

double calibrate_tsc_mhz(double seconds) {
    auto now_ns = [] {
        timespec ts;
        clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
        return ts.tv_sec * 1e9 + ts.tv_nsec;
    };
    double n0 = now_ns();
    uint64_t t0 = __rdtsc();
    double n1;
    do n1 = now_ns(); while (n1 - n0 < seconds * 1e9);
    uint64_t t1 = __rdtsc();
    return double(t1 - t0) / ((n1 - n0) / 1e3);
}

namespace {

std::string cpu_model() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) {
            auto p = line.find(':');
            if (p != std::string::npos) return line.substr(line.find_first_not_of(' ', p + 1));
        }
    return "unknown";
}

std::string cpu_vendor() {
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return "unknown";
    return cpuid_vendor_string(b, c, d);
}

} // namespace

HostFacts probe_host(std::optional<uint64_t> kvm_tsc_khz) {
    HostFacts h;
    h.cpu_model = cpu_model();
    h.cpu_vendor = cpu_vendor();
    utsname u{};
    h.kernel_release = uname(&u) == 0 ? u.release : "unknown";
    h.backend = detect_backend();
    h.backend_module = h.backend == Backend::Vmx   ? "kvm_intel"
                       : h.backend == Backend::Svm ? "kvm_amd"
                       : h.backend == Backend::Pvm ? "kvm_pvm"
                                                   : "unknown";
    h.host_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    h.tsc_calibrated_mhz = calibrate_tsc_mhz();
    if (kvm_tsc_khz && *kvm_tsc_khz) {
        double kvm = *kvm_tsc_khz / 1e3;
        double off = std::fabs(kvm - h.tsc_calibrated_mhz) / kvm * 100;
        h.tsc_mhz = kvm;
        // The source is a host fact that two runs compare: it names the
        // calibration's figure only when it disagrees, not its noise each run.
        h.tsc_source = off <= kTscAgreementPct
                           ? fmt::format("KVM_GET_TSC_KHZ (a CLOCK_MONOTONIC_RAW calibration agrees within {:g}%)",
                                         kTscAgreementPct)
                           : fmt::format("KVM_GET_TSC_KHZ; a CLOCK_MONOTONIC_RAW calibration gave {:.1f} MHz "
                                         "({:.2f}% off)", h.tsc_calibrated_mhz, off);
    } else {
        h.tsc_mhz = h.tsc_calibrated_mhz;
        h.tsc_source = "calibrated against CLOCK_MONOTONIC_RAW over 20 ms";
    }
    return h;
}

} // namespace eb::vmm
