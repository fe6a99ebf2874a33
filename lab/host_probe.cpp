#include "lab/host_probe.h"

#include <optional>

#include "lab/run.h"
#include "vmm/host.h"

namespace eb::lab {

ProbedHost probe_host_context(const std::string& device) {
    ProbedHost p{std::make_unique<kvm::System>(open_kvm(device)), {}};
    p.ctx = suite::probe_context(*p.sys);
    p.ctx.apic_mode = suite::resolve_apic_mode("auto", p.ctx);
    return p;
}

env::Facts host_facts(const std::string& device, std::string& missing) {
    std::optional<uint64_t> khz;
    try {
        auto sys = kvm::System::open(device);
        khz = suite::probe_context(sys).tsc_khz;
    } catch (const std::exception& e) {  // the facts without KVM's are still worth printing
        missing = e.what();
    }
    return env::capture(vmm::probe_host(khz));
}

} // namespace eb::lab
