// The host environment a result was measured in: everything that can make
// two runs differ besides the change under test. The experiments that
// motivate it (the BHI mitigation's SPEC_CTRL toggling, EFER switching, the
// x2APIC IPI fastpath) depend on microcode, mitigations, KVM parameters and
// the host's own SPEC_CTRL, so all of those are recorded.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "vmm/host.h"

namespace eb::env {

// Ordered "group.key" -> value. Values that cannot be read say
// "unreadable: why" rather than being left out or guessed.
using Facts = std::vector<std::pair<std::string, std::string>>;

Facts capture(const vmm::HostFacts& host);

// The facts whose values differ, or that only one side has.
struct Difference {
    std::string key, a, b;
};
std::vector<Difference> diff(const Facts& a, const Facts& b);

// Pure helpers, tested on fixtures.
std::string cpuinfo_field(const std::string& cpuinfo, const std::string& key);
std::string cmdline_param(const std::string& cmdline, const std::string& key);

} // namespace eb::env
