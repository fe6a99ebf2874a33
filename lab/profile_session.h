// run --profile: records our own process's kvm tracepoints on a thread while
// the tests run, then gives each test the host-side figures of its time
// window. A recording failure never costs the results: profiling stops with a
// warning.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "profile/record.h"
#include "profile/trace_file.h"
#include "suite/result.h"
#include "vmm/host.h"

namespace eb::lab {

// Whether this process still holds an ftrace instance to remove: a second
// stop signal must not end it before that. Async-signal-safe.
inline bool tracing_active() { return profile::instance_active(); }

// A temporary trace file, named so that one left by SIGKILL is removed by a
// later run. Throws HostError.
std::string make_temp_trace();

class ProfileSession {
public:
    // `keep`: a file to keep the trace in (every kvm event), or empty.
    ProfileSession(const vmm::HostFacts& host, const std::string& keep);
    ~ProfileSession();
    ProfileSession(const ProfileSession&) = delete;
    ProfileSession& operator=(const ProfileSession&) = delete;

    // Stops recording and sets each measured result's host_profile.
    void attribute(std::vector<suite::TestResult>& results);

    // kvm_pvm emulates guest CPL0 code and never fires kvm_exit/kvm_entry:
    // there is nothing to attribute.
    static bool can_attribute(vmm::Backend b) { return b != vmm::Backend::Pvm; }
    // Says so in each measured result, when nothing was recorded.
    static void nothing_to_attribute(std::vector<suite::TestResult>& results, const vmm::HostFacts& host);

private:
    void poll();
    void warn(const char* why) const;
    static void attribute(std::vector<suite::TestResult>& results, profile::TraceFile trace, uint64_t lost);

    bool keep_;
    std::string path_;
    std::unique_ptr<profile::Recorder> rec_;
    std::thread poller_;
    std::atomic<bool> stop_{false};
};

} // namespace eb::lab
