#include "profile/host_counter.h"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <linux/perf_event.h>
#include <stdexcept>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys/error.h"

namespace eb::profile {

namespace {

int open_counter(uint64_t config, pid_t tid) {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = PERF_TYPE_HARDWARE;
    a.config = config;
    a.disabled = 1;
    a.exclude_guest = 1;  // the host's part only: guest mode is what the guest's own TSC measures
    return static_cast<int>(syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

uint64_t read_count(const sys::Fd& fd) {
    uint64_t v = 0;
    if (::read(fd.get(), &v, sizeof v) != sizeof v) return 0;
    return v;
}

} // namespace

HostCounts& HostCounts::operator+=(const HostCounts& o) {
    instructions += o.instructions;
    cycles += o.cycles;
    iterations += o.iterations;
    batches += o.batches;
    return *this;
}

std::string counting_error_text(int err) {
    switch (err) {
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP: return "unavailable: no PMU";
    case EACCES:
    case EPERM: return fmt::format("unavailable: perf_event_open refused the counters ({})", std::strerror(err));
    default: return fmt::format("unavailable: perf_event_open failed ({})", std::strerror(err));
    }
}

std::optional<std::string> host_counting_unavailable() {
    sys::Fd fd(open_counter(PERF_COUNT_HW_INSTRUCTIONS, 0));
    if (!fd.valid()) return counting_error_text(errno);
    return std::nullopt;
}

void HostCounter::start(const std::vector<pid_t>& tids) {
    for (pid_t tid : tids) {
        if (tid == 0) continue;
        bool known = false;
        for (const auto& t : threads_) known = known || t.tid == tid;
        if (known) continue;
        sys::Fd c(open_counter(PERF_COUNT_HW_CPU_CYCLES, tid));
        if (!c.valid() && errno == ESRCH) continue;  // the thread has already ended
        sys::Fd i(c.valid() ? open_counter(PERF_COUNT_HW_INSTRUCTIONS, tid) : -1);
        if (!c.valid() || !i.valid()) throw HostError("host counts " + counting_error_text(errno));
        threads_.push_back({tid, std::move(c), std::move(i)});
    }
    for (auto& t : threads_)
        for (auto* fd : {&t.cycles, &t.instructions}) {
            ioctl(fd->get(), PERF_EVENT_IOC_RESET, 0);
            ioctl(fd->get(), PERF_EVENT_IOC_ENABLE, 0);
        }
}

void HostCounter::stop(HostCounts& into, uint64_t iterations) {
    HostCounts n;
    for (auto& t : threads_) {
        ioctl(t.cycles.get(), PERF_EVENT_IOC_DISABLE, 0);
        ioctl(t.instructions.get(), PERF_EVENT_IOC_DISABLE, 0);
        n.cycles += read_count(t.cycles);
        n.instructions += read_count(t.instructions);
    }
    n.iterations = iterations;
    n.batches = 1;
    into += n;
}

} // namespace eb::profile
