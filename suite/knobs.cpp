#include "suite/knobs.h"
#include "sys/error.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace eb::suite {

namespace {

struct MsrName {
    const char* name;
    uint32_t index;
};
constexpr MsrName kMsrs[] = {
    {"tsc_adjust", 0x3b},   {"spec_ctrl", 0x48},     {"pred_cmd", 0x49},
    {"arch_capabilities", 0x10a}, {"tsx_ctrl", 0x122}, {"misc_enable", 0x1a0},
    {"pat", 0x277},         {"star", 0xc0000081},    {"lstar", 0xc0000082},
    {"cstar", 0xc0000083},  {"sfmask", 0xc0000084},  {"fs_base", 0xc0000100},
    {"kernel_gs_base", 0xc0000102}, {"tsc_aux", 0xc0000103},
};
// The runtime relies on these; changing them would break the guest, not measure it.
struct Reserved {
    const char* name;
    uint32_t index;
    const char* why;
};
constexpr Reserved kReserved[] = {{"apic_base", 0x1b, "the runtime sets it (use --apic)"},
                                  {"efer", 0xc0000080, "use --guest-efer"},
                                  {"gs_base", 0xc0000101, "it holds the runtime's per-vCPU pointer"}};

uint64_t parse_number(const std::string& what, const std::string& v) {
    errno = 0;
    char* end = nullptr;
    uint64_t n = std::strtoull(v.c_str(), &end, 0);
    if (v.empty() || v[0] == '-' || errno || !end || *end)
        throw InputError(what + ": '" + v + "' is not a number");
    return n;
}

} // namespace

uint32_t parse_msr_index(const std::string& name) {
    uint32_t idx = 0;
    bool found = false;
    for (const auto& r : kReserved)
        if (name == r.name) idx = r.index, found = true;
    for (const auto& m : kMsrs)
        if (name == m.name) idx = m.index, found = true;
    if (!found) {
        if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) {
            std::string names;
            for (const auto& m : kMsrs) names += std::string(names.empty() ? "" : ", ") + m.name;
            throw InputError("--guest-msr: unknown MSR '" + name + "' (names: " + names +
                                        "; or a number such as 0x48)");
        }
        uint64_t n = parse_number("--guest-msr", name);
        if (n > 0xffffffff) throw InputError("--guest-msr: MSR index " + name + " is out of range");
        idx = static_cast<uint32_t>(n);
    }
    for (const auto& r : kReserved)
        if (idx == r.index)
            throw InputError(std::string("--guest-msr: ") + r.name + " is off limits: " + r.why);
    return idx;
}

MsrKnob parse_msr_knob(const std::string& spec) {
    auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
        throw InputError("--guest-msr takes MSR=VALUE, e.g. spec_ctrl=0x401, not '" + spec + "'");
    MsrKnob k;
    k.name = spec.substr(0, eq);
    k.index = parse_msr_index(k.name);
    k.value = parse_number("--guest-msr " + k.name, spec.substr(eq + 1));
    return k;
}

EferKnob parse_efer(const std::string& spec) {
    EferKnob e;
    std::stringstream ss(spec);
    std::string item;
    while (std::getline(ss, item, ',')) {
        auto eq = item.find('=');
        std::string key = item.substr(0, eq), val = eq == std::string::npos ? "" : item.substr(eq + 1);
        if (val != "on" && val != "off")
            throw InputError("--guest-efer takes nx=on|off and sce=on|off, not '" + item + "'");
        if (key == "nx") e.nx = val == "on";
        else if (key == "sce") e.sce = val == "on";
        else throw InputError("--guest-efer: unknown bit '" + key + "' (nx, sce)");
    }
    if (!e.nx && !e.sce) throw InputError("--guest-efer needs nx=on|off and/or sce=on|off");
    return e;
}

} // namespace eb::suite
