// Exit verification through kvm tracepoints (kvm_msr, kvm_pio, kvm_mmio,
// kvm_cpuid, kvm_apic_ipi, kvm_apic_accept_irq, and kvm_emulate_insn filtered
// in the kernel on the body's RIP) for the tests the stats fd leaves
// unverified: a separate batch per test, in a fresh VM after the measured
// ones, traced in an ftrace instance of its own, so tracing never slows a
// measured batch.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "profile/event.h"
#include "suite/result.h"
#include "suite/spec.h"

namespace eb::lab {

inline constexpr uint64_t kTraceVerifyIterations = 256;

// What to count: events of these types whose `a` field is one of `keys`
// (any, when `keys` is empty).
struct TraceMatch {
    std::vector<profile::EventType> types;
    std::vector<uint64_t> keys;
};
// The match for `key`; Emulate matches the RIPs in `rips`.
TraceMatch trace_match(const suite::TraceKey& key, const std::vector<uint64_t>& rips = {});

// Hits inside the windows (CLOCK_MONOTONIC ns).
uint64_t count_trace_hits(std::span<const profile::Event> events, const TraceMatch& m,
                          const std::vector<std::pair<int64_t, int64_t>>& windows);
uint64_t count_trace_hits(std::span<const profile::Event> events, const suite::TraceKey& key,
                          const std::vector<std::pair<int64_t, int64_t>>& windows);
// "kvm_msr 0x3b", "kvm_pio 0x4d0", "kvm_cpuid 0x0", "kvm_apic_ipi", "emulated".
std::string trace_key_name(const suite::TraceKey& key);
// Judges `hits` over `iterations` against the test's expectation (against
// key.per_iter where the key counts something else than the exits, as an
// emulated instruction); the result's status becomes ok/mismatch/no-exit
// with the trace as the source. `where`: the RIPs, for the source text.
void apply_trace_check(suite::TestResult& r, const suite::TestSpec& t, uint64_t hits, uint64_t iterations,
                       const std::string& where = {});

// The addresses of the body's instruction (key.opcode) in its batch function,
// or why there are none.
std::vector<uint64_t> body_rips(const suite::TestSpec& t, const vmm::HostFacts& host, std::string& why);
// kvm_emulate_insn's filter for those RIPs: "rip == 0x1 || rip == 0x2".
std::string rip_filter(const std::vector<uint64_t>& rips);

// For each unverified result whose test names a tracepoint: `rerun` runs the
// test again (one batch of kTraceVerifyIterations) while the tracepoints are
// recorded. Without tracefs access the results stay unverified, with a note
// saying how to enable it.
void verify_by_trace(std::vector<suite::TestResult>& results, const vmm::HostFacts& host,
                     const std::function<suite::TestResult(const suite::TestSpec&)>& rerun,
                     const std::atomic<bool>& interrupt);

} // namespace eb::lab
