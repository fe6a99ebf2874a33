// Exit verification through kvm tracepoints (kvm_msr, kvm_pio, kvm_mmio) for
// the tests the stats fd leaves unverified: a separate batch per test, in a
// fresh VM after the measured ones, traced in an ftrace instance of its own,
// so tracing never slows a measured batch.
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

// Hits of the test's tracepoint and key inside the windows (CLOCK_MONOTONIC ns).
uint64_t count_trace_hits(std::span<const profile::Event> events, const suite::TraceKey& key,
                          const std::vector<std::pair<int64_t, int64_t>>& windows);
// "kvm_msr 0x3b", "kvm_pio 0x4d0", "kvm_mmio 0xd0001000".
std::string trace_key_name(const suite::TraceKey& key);
// Judges `hits` over `iterations` against the test's expectation; the result's
// status becomes ok/mismatch/no-exit with the trace as the source.
void apply_trace_check(suite::TestResult& r, const suite::TestSpec& t, uint64_t hits, uint64_t iterations);

// For each unverified result whose test names a tracepoint: `rerun` runs the
// test again (one batch of kTraceVerifyIterations) while the tracepoints are
// recorded. Without tracefs access the results stay unverified, with a note
// saying how to enable it.
void verify_by_trace(std::vector<suite::TestResult>& results, const vmm::HostFacts& host,
                     const std::function<suite::TestResult(const suite::TestSpec&)>& rerun,
                     const std::atomic<bool>& interrupt);

} // namespace eb::lab
