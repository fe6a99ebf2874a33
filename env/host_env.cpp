#include "env/host_env.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "sys/fd.h"

namespace eb::env {

namespace fs = std::filesystem;

namespace {

std::string unreadable(const std::string& why) { return "unreadable: " + why; }

std::string slurp(const fs::path& p) {
    std::ifstream f(p);
    if (!f) return unreadable(p.string() + ": " + std::strerror(errno ? errno : ENOENT));
    std::stringstream ss;
    ss << f.rdbuf();
    std::string s = ss.str();
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

// Every readable file in a directory, as prefix.name -> content.
void add_dir(Facts& out, const std::string& prefix, const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        out.emplace_back(prefix, unreadable(dir.string() + " does not exist"));
        return;
    }
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) out.emplace_back(prefix + "." + f.filename().string(), slurp(f));
}

// One MSR of one CPU through the msr driver, as text.
std::string host_msr(int cpu, uint32_t index) {
    std::string path = fmt::format("/dev/cpu/{}/msr", cpu);
    sys::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid())
        return unreadable(path + ": " + std::strerror(errno) +
                          (errno == ENOENT ? " (the msr module is not loaded)" : ""));
    uint64_t v = 0;
    ssize_t n = ::pread(fd.get(), &v, sizeof v, index);
    int e = errno;
    if (n != sizeof v) return unreadable(fmt::format("{} offset {:#x}: {}", path, index, std::strerror(n < 0 ? e : EIO)));
    return fmt::format("{:#x}", v);
}

} // namespace

std::string cpuinfo_field(const std::string& cpuinfo, const std::string& key) {
    std::istringstream in(cpuinfo);
    std::string line;
    while (std::getline(in, line)) {
        auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string k = line.substr(0, colon);
        while (!k.empty() && (k.back() == ' ' || k.back() == '\t')) k.pop_back();
        if (k != key) continue;
        auto v = line.find_first_not_of(' ', colon + 1);
        return v == std::string::npos ? "" : line.substr(v);
    }
    return unreadable("no '" + key + "' in /proc/cpuinfo");
}

std::string cmdline_param(const std::string& cmdline, const std::string& key) {
    std::istringstream in(cmdline);
    std::string word;
    while (in >> word)
        if (word.rfind(key + "=", 0) == 0) return word.substr(key.size() + 1);
    return "not set";
}

Facts capture(const vmm::HostFacts& host) {
    Facts f;
    std::string cpuinfo = slurp("/proc/cpuinfo");
    f.emplace_back("cpu.model", host.cpu_model);
    f.emplace_back("cpu.vendor", host.cpu_vendor);
    for (const char* k : {"cpu family", "model", "stepping", "microcode"})
        f.emplace_back(std::string("cpu.") + (std::string(k) == "cpu family" ? "family" : std::string(k) == "model" ? "model_id" : k),
                       cpuinfo_field(cpuinfo, k));
    f.emplace_back("cpu.online", std::to_string(host.host_cpus));

    std::string cmdline = slurp("/proc/cmdline");
    f.emplace_back("kernel.release", host.kernel_release);
    f.emplace_back("kernel.cmdline", cmdline);
    for (const char* k : {"mitigations", "spectre_bhi", "spectre_v2", "isolcpus", "nohz_full"})
        f.emplace_back(std::string("kernel.cmdline.") + k, cmdline_param(cmdline, k));
    add_dir(f, "vulnerability", "/sys/devices/system/cpu/vulnerabilities");

    f.emplace_back("kvm.backend", vmm::backend_name(host.backend));
    f.emplace_back("kvm.module", host.backend_module);
    add_dir(f, "kvm.param.kvm", "/sys/module/kvm/parameters");
    if (host.backend_module != "unknown")
        add_dir(f, "kvm.param." + host.backend_module, "/sys/module/" + host.backend_module + "/parameters");

    f.emplace_back("tsc.mhz", fmt::format("{:.3f}", host.tsc_mhz));
    f.emplace_back("tsc.source", host.tsc_source);
    f.emplace_back("smt.control", slurp("/sys/devices/system/cpu/smt/control"));
    f.emplace_back("smt.active", slurp("/sys/devices/system/cpu/smt/active"));
    f.emplace_back("cpufreq.governor", slurp("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"));
    if (fs::exists("/sys/devices/system/cpu/intel_pstate/no_turbo"))
        f.emplace_back("cpufreq.no_turbo", slurp("/sys/devices/system/cpu/intel_pstate/no_turbo"));
    else
        f.emplace_back("cpufreq.boost", slurp("/sys/devices/system/cpu/cpufreq/boost"));
    f.emplace_back("cpu.isolated", slurp("/sys/devices/system/cpu/isolated"));
    f.emplace_back("cpu.nohz_full", slurp("/sys/devices/system/cpu/nohz_full"));
    for (int c = 0; c < host.host_cpus; ++c)
        f.emplace_back(fmt::format("msr.spec_ctrl.cpu{}", c), host_msr(c, 0x48));
    // EFER switching (recipe efer-switch): the host's EFER, and whether VMX
    // can load it on entry and exit (the allowed-1 halves of the TRUE controls).
    f.emplace_back("msr.efer.cpu0", host_msr(0, 0xc0000080));
    if (host.backend == vmm::Backend::Vmx) {
        f.emplace_back("msr.vmx_true_entry_ctls.cpu0", host_msr(0, 0x490));
        f.emplace_back("msr.vmx_true_exit_ctls.cpu0", host_msr(0, 0x48f));
    }
    return f;
}

std::vector<Difference> diff(const Facts& a, const Facts& b) {
    std::map<std::string, std::string> ma(a.begin(), a.end()), mb(b.begin(), b.end());
    std::vector<Difference> out;
    for (const auto& [k, v] : a) {
        auto it = mb.find(k);
        if (it == mb.end()) out.push_back({k, v, "(absent)"});
        else if (it->second != v) out.push_back({k, v, it->second});
    }
    for (const auto& [k, v] : b)
        if (!ma.count(k)) out.push_back({k, "(absent)", v});
    return out;
}

} // namespace eb::env
