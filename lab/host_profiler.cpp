#include "lab/host_profiler.h"

#include <algorithm>

#include <fmt/format.h>

namespace eb::lab {

namespace {

// RawStack's first two words: the sample's mode and its kernel frames' count.
constexpr size_t kRawHeader = 2;

// Root-first names of one raw stack.
std::vector<std::string> name_stack(const std::vector<uint64_t>& raw, profile::Symbolizer& sym, const char* guest) {
    auto mode = static_cast<profile::CpuMode>(raw[0]);
    if (mode == profile::CpuMode::GuestKernel || mode == profile::CpuMode::GuestUser) return {guest};
    size_t kernel_frames = raw[1];
    std::vector<std::string> out;
    for (size_t i = raw.size(); i-- > kRawHeader;) {
        bool kernel = i - kRawHeader < kernel_frames;
        out.push_back(kernel ? sym.kernel(raw[i]) : sym.user(raw[i]));
    }
    return out;
}

} // namespace

HostProfiler::HostProfiler(uint32_t frequency_hz)
    : hz_(frequency_hz), counts_unavailable_(profile::host_counting_unavailable()) {
    event_ = profile::HostSampler::choose(hz_, fallback_why_);  // after fallback_why_ exists
}

HostProfiler::~HostProfiler() = default;

void HostProfiler::test_starting(const std::string& test) {
    raw_.clear();
    current_ = {};
    current_.test = test;
    current_.frequency_hz = hz_;
    current_.event = profile::sample_event_name(event_);
    current_.fallback_why = fallback_why_;
    current_.counts_unavailable = counts_unavailable_.value_or("");
    sampling_ = counting_ = false;
    sampler_ = std::make_unique<profile::HostSampler>(
        hz_, [this](const profile::HostSample& s) { record(s); }, event_);
    if (!counts_unavailable_) counter_ = std::make_unique<profile::HostCounter>();
}

// Called under the sampler's lock, one sample at a time.
void HostProfiler::record(const profile::HostSample& s) {
    RawStack raw{static_cast<uint64_t>(s.mode), s.kernel_frames};
    if (s.chain.empty()) {
        raw.push_back(s.ip);
        raw[1] = s.mode == profile::CpuMode::Kernel ? 1 : 0;
    } else {
        // The kernel's frames, and of the user side only the leaf: exitbench
        // is built without frame pointers, so the kernel's user-stack walk
        // past the leaf reads whatever the stack holds.
        size_t keep = std::min<size_t>(s.chain.size(), size_t(s.kernel_frames) + 1);
        raw.insert(raw.end(), s.chain.begin(), s.chain.begin() + static_cast<ptrdiff_t>(keep));
    }
    ++raw_[raw];
}

// Even batches are sampled, odd ones are not: the reference for the
// overhead, and where the host's instructions and cycles are counted.
bool HostProfiler::batch_starting(uint32_t index, const std::vector<pid_t>& vcpu_tids) {
    sampling_ = counting_ = false;
    if (index % 2 && counter_) {
        try {
            counter_->start(vcpu_tids);
            counting_ = true;
        } catch (const std::exception& e) {
            current_.counts_unavailable = e.what();
            counter_.reset();
        }
    }
    if (!sampler_ || index % 2) return false;
    try {
        sampler_->enable(vcpu_tids);
        sampling_ = true;
        uint32_t n = 0;
        for (pid_t t : vcpu_tids) n += t != 0;
        current_.threads = std::max(current_.threads, n);
        batch_start_ = std::chrono::steady_clock::now();
    } catch (const std::exception& e) {
        errors_.push_back(fmt::format("{}: {}", current_.test, e.what()));
        sampler_.reset();  // this test goes unprofiled, the run goes on
    }
    return sampling_;
}

void HostProfiler::batch_ended(uint64_t cycles, uint64_t iterations) {
    if (sampling_ && sampler_) {
        sampler_->disable();
        current_.sampled_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - batch_start_).count();
    }
    profile::HostCounts counted;
    if (counting_) counter_->stop(counted, iterations);
    if (cycles && iterations) {  // a batch that completed
        if (counting_) {
            if (!current_.host_counts) current_.host_counts.emplace();
            *current_.host_counts += counted;
        }
        auto& b = sampling_ ? current_.sampled : current_.plain;
        b.count += 1;
        b.iterations += iterations;
        b.cycles += double(cycles);
        current_.max_batch_iterations = std::max(current_.max_batch_iterations, iterations);
    }
    sampling_ = counting_ = false;
}

void HostProfiler::test_ended(const std::string& test) {
    if (sampler_) {
        sampler_->disable();
        sampler_->drain();
        current_.counts = sampler_->counts();
        sampler_.reset();  // closes the events: nothing samples past this test
        finish_test();
    }
    counter_.reset();
    current_.test = test;
    auto [it, fresh] = done_.try_emplace(test);
    if (fresh) {
        order_.push_back(test);
        it->second.test = test;
        it->second.frequency_hz = hz_;
    }
    it->second.merge(current_);
    raw_.clear();
    current_ = {};
}

void HostProfiler::finish_test() {
    if (!symbols_) symbols_ = profile::Symbolizer::for_this_process();
    for (const auto& [raw, n] : raw_)
        if (raw.size() > kRawHeader)
            current_.add(name_stack(raw, *symbols_, event_ == profile::SampleEvent::Cycles ? profile::kGuestFrame
                                                                                         : profile::kGuestOrIrqsOffFrame),
                         n);
}

std::vector<profile::TestHostProfile> HostProfiler::profiles() const {
    std::vector<profile::TestHostProfile> out;
    for (const auto& name : order_) out.push_back(done_.at(name));
    return out;
}

void HostProfiler::attach_to(suite::RunReport& r) const {
    for (auto& t : r.results)
        if (auto it = done_.find(t.name); it != done_.end()) t.host_samples = it->second;
}

std::string HostProfiler::folded_stacks() const { return profile::folded_stacks(profiles()); }

std::vector<std::string> HostProfiler::notes() const {
    std::vector<std::string> out = errors_;
    if (symbols_)
        for (auto& n : symbols_->notes()) out.push_back(std::move(n));
    return out;
}

} // namespace eb::lab
