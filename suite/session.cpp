#include "suite/session.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "guest/abi.h"

namespace eb::suite {

namespace {
constexpr uint64_t kFirstBatch = 64;       // like vmexit.flat: 32, doubled before the first run
constexpr uint64_t kMaxBatch = 1ull << 36;

// The next warm-up size after a batch of `n` took `cycles`, short of `goal`.
// Doubling alone lands the final batch anywhere in [goal, 2 goal), ~1.5 goals
// on average (31-34 ms batches for the 20 ms goal, measured); once a batch is
// long enough to predict the next (1/16 of the goal), the size is scaled to
// just over the goal instead, at most 16-fold.
uint64_t next_batch(uint64_t n, double cycles, double goal) {
    if (cycles < goal / 16) return n * 2;
    double scaled = double(n) * goal * 1.05 / cycles;
    return std::clamp<uint64_t>(uint64_t(scaled) + 1, n + 1, n * 16);
}

std::string vector_name(uint64_t v) {
    static const char* const names[] = {"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM",
                                        "#DF", "vector 9", "#TS", "#NP", "#SS", "#GP", "#PF",
                                        "vector 15", "#MF", "#AC", "#MC", "#XM", "#VE", "#CP"};
    if (v < std::size(names)) return fmt::format("{} (vector {})", names[v], v);
    if (v < 32) return fmt::format("exception vector {}", v);
    return fmt::format("unexpected interrupt, vector {:#x}", v);
}
} // namespace

int64_t monotonic_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

Session::Session(Executor& x, const RunSettings& s, double tsc_mhz, uint32_t body_vcpus,
                 Fixture* fixture, uint64_t max_iterations)
    : x_(x), settings_(s), goal_ticks_(s.time_goal_s * tsc_mhz * 1e6), body_vcpus_(body_vcpus),
      fixture_(fixture),
      max_n_(std::min(max_iterations ? max_iterations : kMaxBatch, s.per_exit ? abi::kSampleMax : kMaxBatch)),
      last_progress_(monotonic_ns()) {
    if (x.kvm_stat_names()) obs_.kvm.emplace();
}

Session::Snapshot Session::snapshot() const {
    Snapshot s;
    s.host = x_.counters();
    for (uint32_t i = 0; i < x_.nr_vcpus(); ++i) {
        const auto& mb = x_.mailbox(i);
        s.irqs += mb.irqs;
        s.ipi_lat_sum += mb.ipi_lat_sum;
        s.ipi_lat_count += mb.ipi_lat_count;
    }
    return s;
}

void Session::accumulate(const Snapshot& from, const Snapshot& to) {
    obs_.iterations += n_;
    obs_.all_iterations += n_ * body_vcpus_;
    obs_.batches += 1;
    obs_.user_io += to.host.user_io - from.host.user_io;
    obs_.user_mmio += to.host.user_mmio - from.host.user_mmio;
    obs_.irqs += to.irqs - from.irqs;
    obs_.user_hypercall += to.host.hypercall - from.host.hypercall;
    obs_.user_msr += to.host.msr - from.host.msr;
    obs_.user_times += to.host.user_times - from.host.user_times;
    if (uint64_t n = to.ipi_lat_count - from.ipi_lat_count)
        ipi_latency_.push_back(double(to.ipi_lat_sum - from.ipi_lat_sum) / double(n));
    if (const auto& names = x_.kvm_stat_names())
        for (size_t i = 0; i < names->size() && i < to.host.kvm.size(); ++i)
            (*obs_.kvm)[(*names)[i]] += to.host.kvm[i] - from.host.kvm[i];
}

vmm::Action Session::stop(End why, std::string failure, uint32_t vcpu) {
    std::lock_guard lock(end_mu_);
    if (end_ == End::Running) {
        end_ = why;
        failure_ = std::move(failure);
        failed_vcpu_ = vcpu;
    }
    return vmm::Action::Stop;
}

Session::End Session::end() const {
    std::lock_guard lock(end_mu_);
    return end_;
}

std::string Session::failure() const {
    std::lock_guard lock(end_mu_);
    return failure_;
}

uint32_t Session::failed_vcpu() const {
    std::lock_guard lock(end_mu_);
    return failed_vcpu_;
}

// Warm-up batches double until one takes the time goal and are discarded, as
// in vmexit.flat (from an earlier session's size when reuse_batch said so);
// then `repeats` batches of that size are measured (not counting batches the
// hooks perturbed).
vmm::Action Session::on_batch_done(const abi::Mailbox& mb) {
    double cycles = static_cast<double>(mb.cycles);
    all_iterations_ += n_ * body_vcpus_;
    int64_t took = monotonic_ns() - batch_start_ns_;
    (measuring_ && !perturbed_ ? measured_ns_ : warmup_ns_) += took;
    if (measuring_ && perturbed_) {
        ++set_aside_;  // the hooks' batch (sampled): another unperturbed one takes its place
        after_set_aside_ = true;
    } else if (measuring_) {
        obs_.gaps += after_set_aside_;
        after_set_aside_ = false;
        windows_.emplace_back(batch_start_ns_, monotonic_ns());
        accumulate(prev_, snapshot());
        samples_.push_back(cycles / n_);
        if (settings_.per_exit) {
            auto buf = x_.per_exit_samples(n_);
            per_exit_.insert(per_exit_.end(), buf.begin(), buf.end());
        }
        if (samples_.size() >= settings_.repeats) return stop(End::Done, {});
    } else if (!settings_.iterations && !shrunk_ && cycles > 2 * goal_ticks_ && n_ > 1) {
        // A body so slow that even the first batch overshoots (nmi_window and
        // tscdeadline take ms per iteration on kvm_pvm): cut to the goal, once.
        n_ = std::max<uint64_t>(1, uint64_t(double(n_) * goal_ticks_ * 1.05 / cycles) + 1);
        shrunk_ = true;
        reusing_ = false;
    } else if (!settings_.iterations && cycles < goal_ticks_ && n_ < max_n_) {
        if (n_ >= kMaxBatch)
            return stop(End::Diverged, fmt::format("a batch of {} iterations still took only {:.0f} "
                                                   "cycles; the body does not seem to run", n_, cycles));
        n_ = std::min(next_batch(n_, cycles, goal_ticks_), max_n_);
        reusing_ = false;  // the earlier size fell short of the goal: calibrated again from it
    } else if (extra_warmup_ < settings_.warmup) {
        ++extra_warmup_;  // --warmup: batches of the final size, discarded as well
    } else {
        measuring_ = true;
    }
    return vmm::Action::Resume;
}

namespace {
// A guest string field: at most its size, even if the guest left no NUL.
template <size_t N>
std::string guest_text(const char (&s)[N]) {
    return std::string(s, strnlen(s, N));
}
} // namespace

// "guest check failed at guest/bodies/kut.cpp:26: inl(...) == kUserPortValue
// (0x0 vs 0x5ca1ab1e): user port returned a wrong value", or the message of a
// plain fail().
std::string failed_check_text(const abi::Mailbox& mb) {
    std::string msg = guest_text(mb.msg);
    const auto& c = mb.check;
    if (c.line == 0) return msg;
    std::string out = fmt::format("guest check failed at {}:{}: {}", guest_text(c.file), c.line, guest_text(c.expr));
    if (c.has_values) out += fmt::format(" ({:#x} vs {:#x})", c.lhs, c.rhs);
    return out + ": " + msg;
}

vmm::Action Session::on_ucall(const vmm::Access& a) {
    uint32_t type = 0;
    std::memcpy(&type, a.data.data(), std::min<size_t>(a.data.size(), 4));
    auto& mb = x_.mailbox(a.vcpu);
    if (hooked_batch_) {  // first: the harness's own exit handling stays out of the window
        hooked_batch_ = false;
        hooks_->batch_ended(type == abi::kBatchDone ? mb.cycles : 0, n_);
    }

    switch (type) {
    case abi::kReady:
        if (!state_) {  // once: start-up
            ready_ns_ = monotonic_ns();
            last_progress_.store(ready_ns_, std::memory_order_relaxed);
        }
        state_ = mb.state;
        reusing_ = reuse_ && !settings_.iterations;
        n_ = std::min(settings_.iterations.value_or(reusing_ ? reuse_ : kFirstBatch), max_n_);
        break;
    case abi::kBatchDone:
        last_progress_.store(monotonic_ns(), std::memory_order_relaxed);
        if (on_batch_done(mb) == vmm::Action::Stop) return vmm::Action::Stop;
        break;
    case abi::kSkip:
        return stop(End::Skipped, std::string(mb.msg, strnlen(mb.msg, sizeof mb.msg)), a.vcpu);
    case abi::kFail:
        return stop(End::Failed, failed_check_text(mb), a.vcpu);
    case abi::kException: {
        const auto& e = mb.exc;
        return stop(End::Exception,
                    fmt::format("guest {} error code {:#x} at rip {:#x} (rsp {:#x}, rflags {:#x}, cr2 {:#x})",
                                vector_name(e.vector), e.error_code, e.rip, e.rsp, e.rflags, e.cr2),
                    a.vcpu);
    }
    default:
        return stop(End::BadUcall, fmt::format("unknown ucall {:#x}", type), a.vcpu);
    }
    mb.iterations = n_;
    if (fixture_) fixture_->between_batches();
    prev_ = snapshot();  // the last thing before re-entry: the next batch starts now
    batch_start_ns_ = monotonic_ns();
    if (measuring_ && hooks_) {  // last: the measured batch starts with the next entry
        perturbed_ = hooks_->batch_starting(hooked_batches_++, x_.vcpu_threads());
        hooked_batch_ = true;
    }
    return vmm::Action::Resume;
}

} // namespace eb::suite
