// What `list` and `env` ask of this host: the KVM context the tests' skips
// and expectations are decided against, and the facts a result records.
#pragma once
#include <memory>
#include <string>

#include "env/host_env.h"
#include "suite/runner.h"

namespace eb::lab {

// /dev/kvm opened (NoKvm when it cannot be) and probed, the APIC mode as
// `run --apic auto` would pick it. The context asks the open system about
// capabilities (ctx.sys), so the two go together.
struct ProbedHost {
    std::unique_ptr<kvm::System> sys;
    suite::HostContext ctx;
};
ProbedHost probe_host_context(const std::string& device);

// The host facts (env::capture), with KVM's when /dev/kvm opens; otherwise
// `missing` says why those are absent.
env::Facts host_facts(const std::string& device, std::string& missing);

} // namespace eb::lab
