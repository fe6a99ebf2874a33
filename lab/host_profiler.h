// `run --host-profile`'s use case: samples the vCPU threads while the
// measured batches of each test run (told by the suite's MeasureHooks), and
// keeps one named profile per test, its sessions merged. Every other
// measured batch runs unsampled, the reference the overhead is measured
// against in the same VM; the sampled ones are set aside by the session, so
// the test's results come from unsampled batches only.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "profile/host_counter.h"
#include "profile/host_profile.h"
#include "profile/host_sampler.h"
#include "profile/symbols.h"
#include "suite/measure_hooks.h"

namespace eb::lab {

// 1 kHz: one sampling interrupt (and a call-chain walk) per millisecond of
// vCPU time, perf's own default being 4 kHz; the run prints the overhead it
// measured against the unsampled batches.
inline constexpr uint32_t kDefaultHostProfileHz = 1000;

class HostProfiler final : public suite::MeasureHooks {
public:
    // Throws profile::SamplerError at once when sampling could not work here.
    explicit HostProfiler(uint32_t frequency_hz);
    ~HostProfiler() override;

    void test_starting(const std::string& test) override;
    bool batch_starting(uint32_t index, const std::vector<pid_t>& vcpu_tids) override;
    void batch_ended(uint64_t cycles, uint64_t iterations) override;
    void test_ended(const std::string& test) override;

    // The tests' profiles, in the order they first ran.
    std::vector<profile::TestHostProfile> profiles() const;
    // Each profiled test's profile into its result in `r` (host_samples), so
    // the JSON and the history keep it.
    void attach_to(suite::RunReport& r) const;
    // Their call chains as folded stacks, for flamegraph.pl and speedscope.
    std::string folded_stacks() const;
    // What hid names, and errors met while sampling.
    std::vector<std::string> notes() const;

private:
    // A call chain as sampled, before names: the mode, the kernel frames' count, then leaf-first addresses.
    using RawStack = std::vector<uint64_t>;
    void record(const profile::HostSample& s);
    void finish_test();

    uint32_t hz_;
    profile::SampleEvent event_ = profile::SampleEvent::CpuClock;
    std::string fallback_why_;                    // why not hardware cycles
    std::optional<std::string> counts_unavailable_;  // host counting: nullopt when it works
    std::unique_ptr<profile::HostCounter> counter_;  // the running test's, on its unsampled batches
    bool counting_ = false;
    std::optional<profile::Symbolizer> symbols_;  // read at the first test's end
    std::unique_ptr<profile::HostSampler> sampler_;
    std::map<RawStack, uint64_t> raw_;  // the running test's, filled by the sampler's reader
    profile::TestHostProfile current_;
    bool sampling_ = false;
    std::chrono::steady_clock::time_point batch_start_;
    std::vector<std::string> order_;
    std::map<std::string, profile::TestHostProfile> done_;
    std::vector<std::string> errors_;
};

} // namespace eb::lab
