#include "suite/session.h"

#include <cstring>
#include <fmt/format.h>

#include "guest/abi.h"
#include "vmm/devices.h"

namespace eb::suite {

namespace {
// KVM counters worth keeping per test; absent ones are skipped.
constexpr const char* kTracked[] = {"exits", "irq_exits", "io_exits", "mmio_exits", "halt_exits",
                                    "hypercalls", "insn_emulation", "irq_window_exits",
                                    "nmi_window_exits", "signal_exits", "irq_injections"};
constexpr uint64_t kFirstBatch = 64;       // like vmexit.flat: 32, doubled before the first run
constexpr uint64_t kMaxBatch = 1ull << 36;

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

Session::Session(vmm::Machine& m, const RunSettings& s, double tsc_mhz, uint32_t body_vcpus,
                 Fixture* fixture, uint64_t max_iterations)
    : m_(m), settings_(s), goal_ticks_(s.time_goal_s * tsc_mhz * 1e6), body_vcpus_(body_vcpus),
      fixture_(fixture),
      max_n_(std::min(max_iterations ? max_iterations : kMaxBatch, s.per_exit ? abi::kSampleMax : kMaxBatch)),
      last_progress_(monotonic_ns()) {
    if (m.vm().system().has(EB_CAP(BINARY_STATS_FD))) {
        stats_.emplace(m.vcpu(0).stats_fd());
        for (const char* name : kTracked)
            if (auto i = stats_->find(name)) tracked_.emplace_back(name, *i);
        obs_.kvm.emplace();
    }
}

Session::Snapshot Session::snapshot() const {
    Snapshot s;
    if (stats_) s.stats = stats_->read();
    // Every userspace exit but the ucalls themselves.
    s.user_io = m_.pio().total_hits() - m_.pio().region("ucall")->hits.load();
    s.user_mmio = m_.mmio().total_hits();
    s.hypercall = m_.hypercall_exits();
    s.msr = m_.msr_exits();
    for (uint32_t i = 0; i < m_.nr_vcpus(); ++i) {
        const auto* mb = m_.mem().at<abi::Mailbox>(abi::mailbox_gpa(i));
        s.irqs += mb->irqs;
        s.ipi_lat_sum += mb->ipi_lat_sum;
        s.ipi_lat_count += mb->ipi_lat_count;
    }
    return s;
}

void Session::accumulate(const Snapshot& from, const Snapshot& to) {
    obs_.iterations += n_;
    obs_.all_iterations += n_ * body_vcpus_;
    obs_.batches += 1;
    obs_.user_io += to.user_io - from.user_io;
    obs_.user_mmio += to.user_mmio - from.user_mmio;
    obs_.irqs += to.irqs - from.irqs;
    obs_.user_hypercall += to.hypercall - from.hypercall;
    obs_.user_msr += to.msr - from.msr;
    if (uint64_t n = to.ipi_lat_count - from.ipi_lat_count)
        ipi_latency_.push_back(double(to.ipi_lat_sum - from.ipi_lat_sum) / double(n));
    if (stats_)
        for (const auto& [name, i] : tracked_)
            (*obs_.kvm)[name] += stats_->value(to.stats, i) - stats_->value(from.stats, i);
}

vmm::Action Session::on_ucall(const vmm::Access& a) {
    last_progress_.store(monotonic_ns(), std::memory_order_relaxed);
    uint32_t type = 0;
    std::memcpy(&type, a.data.data(), std::min<size_t>(a.data.size(), 4));
    auto* mb = m_.mem().at<abi::Mailbox>(abi::mailbox_gpa(a.vcpu));

    switch (type) {
    case abi::kReady:
        state_ = mb->state;
        n_ = std::min(settings_.iterations.value_or(kFirstBatch), max_n_);
        break;
    case abi::kBatchDone: {
        double cycles = static_cast<double>(mb->cycles);
        all_iterations_ += n_ * body_vcpus_;
        if (measuring_) {
            accumulate(prev_, snapshot());
            samples_.push_back(cycles / n_);
            if (settings_.per_exit) {
                const auto* buf = m_.mem().at<uint64_t>(abi::kSampleBuf);
                per_exit_.insert(per_exit_.end(), buf, buf + n_);
            }
            if (samples_.size() >= settings_.repeats) {
                end_ = End::Done;
                return vmm::Action::Stop;
            }
        } else if (!settings_.iterations && cycles < goal_ticks_ && n_ < max_n_) {
            if (n_ >= kMaxBatch) {
                end_ = End::Diverged;
                failure_ = fmt::format("a batch of {} iterations still took only {:.0f} cycles; "
                                       "the body does not seem to run", n_, cycles);
                return vmm::Action::Stop;
            }
            n_ = std::min(n_ * 2, max_n_);
        } else {
            measuring_ = true;  // the warm-up batch(es) are discarded, as in vmexit.flat
        }
        break;
    }
    case abi::kSkip:
    case abi::kFail:
        end_ = type == abi::kSkip ? End::Skipped : End::Failed;
        failure_ = std::string(mb->msg, strnlen(mb->msg, sizeof mb->msg));
        return vmm::Action::Stop;
    case abi::kException: {
        const auto& e = mb->exc;
        end_ = End::Exception;
        failure_ = fmt::format("guest {} error code {:#x} at rip {:#x} (rsp {:#x}, rflags {:#x}, "
                               "cr2 {:#x})",
                               vector_name(e.vector), e.error_code, e.rip, e.rsp, e.rflags, e.cr2);
        return vmm::Action::Stop;
    }
    default:
        end_ = End::BadUcall;
        failure_ = fmt::format("unknown ucall {:#x}", type);
        return vmm::Action::Stop;
    }
    mb->iterations = n_;
    if (fixture_) fixture_->between_batches();
    prev_ = snapshot();  // the last thing before re-entry: the next batch starts now
    return vmm::Action::Resume;
}

} // namespace eb::suite
