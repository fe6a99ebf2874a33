#include "lab/profile_exec.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fmt/format.h>

#include "sys/error.h"
#include "sys/process.h"
#include "vmm/host.h"

namespace eb::lab {

namespace {

std::string describe(const sys::ProcessEnd& end) {
    if (end.signal) return fmt::format("killed by signal {}", end.signal);
    return fmt::format("exit status {}", end.code);
}

} // namespace

profile::RecordResult record_processes(const profile::RecordOptions& o, const std::atomic<bool>& interrupt) {
    return profile::record(o, interrupt);
}

profile::Sweep sweep_stale_instances() { return profile::sweep_stale_instances(); }

CommandRecording record_command(const std::vector<std::string>& command, profile::RecordOptions o,
                                const std::atomic<bool>& interrupt) {
    // Found first, so a typo is a usage error before any tracing starts and
    // no empty trace is left behind.
    if (!sys::find_program(command[0])) throw InputError(fmt::format("cannot run '{}': command not found", command[0]));
    // Held until tracing is on; in exitbench's own group with its stdio, as
    // `perf record -- COMMAND` runs it, and with the default signal dispositions.
    sys::Spawn s{command, sys::kInherit, sys::kInherit, sys::kInherit};
    s.own_group = false;
    s.death_signal = SIGTERM;
    s.held = true;
    sys::Process child(s);
    if (!o.all) o.pids = {child.pid()};  // with -a: every process, until the command exits
    o.require_kvm = false;                 // it opens its VM only after exec
    int exec_errno = 0;
    profile::RecordHooks hooks;
    hooks.on_start = [&] { exec_errno = child.release(); };
    hooks.done = [&] { return exec_errno != 0 || child.poll().has_value(); };
    profile::RecordResult r;
    try {
        r = profile::record(o, interrupt, hooks);
    } catch (const std::exception& e) {
        throw HostError(e.what());  // ~Process ends the command, or lets an unreleased one exit
    }
    // We were stopped: so is the command, given 30 s to end its own way
    // (its own cleanup) before it is killed.
    if (!child.poll()) child.signal(SIGTERM);
    sys::ProcessEnd end = child.wait(30, nullptr);
    if (exec_errno) throw HostError(fmt::format("cannot run '{}': {}", command[0], std::strerror(exec_errno)));
    return {r, describe(end)};
}

void stamp_host(profile::RecordOptions& o) {
    auto host = vmm::probe_host(std::nullopt);
    o.isa = vmm::exit_isa(host.backend);
    o.backend = host.backend_module;
    o.cpu_model = host.cpu_model;
}

} // namespace eb::lab
