#include "profile/host_sampler.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <linux/perf_event.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

namespace eb::profile {

namespace {

// 64 pages (256 KiB) per thread: at 4 kHz and ~300 bytes a sample, a
// quarter of it fills in ~50 ms, and the reader wakes then; it fits the
// default perf_event_mlock_kb (516) of an unprivileged user for one vCPU.
constexpr size_t kRingPages = 64;

perf_event_attr sampling_attr(uint64_t period_ns, SampleEvent event = SampleEvent::CpuClock, uint32_t hz = 0) {
    perf_event_attr a{};
    a.size = sizeof a;
    if (event == SampleEvent::Cycles) {
        a.type = PERF_TYPE_HARDWARE;
        a.config = PERF_COUNT_HW_CPU_CYCLES;
        a.freq = 1;  // the kernel adjusts the period to `hz` samples a second
        a.sample_freq = std::max<uint32_t>(hz, 1);
    } else {
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_CPU_CLOCK;
        a.sample_period = period_ns;  // cpu-clock counts nanoseconds
    }
    a.sample_type = kHostSampleType;
    a.disabled = 1;
    a.watermark = 1;
    a.wakeup_watermark = static_cast<uint32_t>(kRingPages * sysconf(_SC_PAGESIZE) / 4);
    return a;  // exclude_kernel/exclude_user stay 0: both sides are the point
}

int perf_event_open(perf_event_attr& a, pid_t tid) {
    return static_cast<int>(syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

std::string read_first_line(const char* path) {
    std::ifstream f(path);
    std::string s;
    if (!std::getline(f, s)) return "unreadable";
    return s;
}

[[noreturn]] void throw_open_error(int err) {
    throw SamplerError(open_error_text(err, read_first_line("/proc/sys/kernel/perf_event_paranoid")));
}

} // namespace

std::string open_error_text(int err, const std::string& paranoid_value) {
    switch (err) {
    case EACCES:
    case EPERM:
        return fmt::format("--host-profile: perf_event_open refused kernel sampling ({}): "
                           "kernel.perf_event_paranoid is {} (it must be <= 1 without CAP_PERFMON or root), "
                           "or a seccomp policy forbids perf_event_open",
                           std::strerror(err), paranoid_value);
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP:
        return fmt::format("--host-profile: this kernel offers no cpu-clock sampling event with call chains ({})",
                           std::strerror(err));
    case ENOSYS:
        return "--host-profile: this kernel has no perf_event_open (CONFIG_PERF_EVENTS is off)";
    default:
        return fmt::format("--host-profile: perf_event_open failed: {}", std::strerror(err));
    }
}

const char* sample_event_name(SampleEvent e) { return e == SampleEvent::Cycles ? "cycles" : "cpu-clock"; }

HostSampler::HostSampler(uint32_t frequency_hz, Sink sink, SampleEvent event)
    : period_ns_(1'000'000'000ull / std::max<uint32_t>(frequency_hz, 1)), hz_(frequency_hz), event_(event),
      sink_(std::move(sink)),
      reader_([this] { reader_loop(); }) {}

HostSampler::~HostSampler() {
    stop_.store(true);
    reader_.join();
    std::lock_guard lk(mu_);
    for (auto& r : rings_) ioctl(r.fd.get(), PERF_EVENT_IOC_DISABLE, 0);
    drain_locked();
    for (auto& r : rings_) munmap(r.map, r.map_bytes);
    rings_.clear();  // closes the events
}

void HostSampler::probe(uint32_t frequency_hz) {
    auto a = sampling_attr(1'000'000'000ull / std::max<uint32_t>(frequency_hz, 1));
    sys::Fd fd(perf_event_open(a, 0));
    if (!fd.valid()) throw_open_error(errno);
}

SampleEvent HostSampler::choose(uint32_t frequency_hz, std::string& why_not_cycles) {
    auto a = sampling_attr(0, SampleEvent::Cycles, frequency_hz);
    sys::Fd fd(perf_event_open(a, 0));
    if (fd.valid()) return SampleEvent::Cycles;
    int e = errno;
    why_not_cycles = e == ENOENT || e == ENODEV || e == EOPNOTSUPP
                         ? "no PMU"
                         : fmt::format("perf_event_open refused the cycles event: {}", std::strerror(e));
    probe(frequency_hz);
    return SampleEvent::CpuClock;
}

void HostSampler::enable(const std::vector<pid_t>& tids) {
    std::lock_guard lk(mu_);
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    for (pid_t tid : tids) {
        if (tid == 0) continue;
        bool known = false;
        for (const auto& r : rings_) known = known || r.tid == tid;
        if (known) continue;
        auto a = sampling_attr(period_ns_, event_, hz_);
        sys::Fd fd(perf_event_open(a, tid));
        if (!fd.valid()) {
            if (errno == ESRCH) continue;  // the thread has already ended
            throw_open_error(errno);
        }
        size_t bytes = (kRingPages + 1) * page;
        void* map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
        if (map == MAP_FAILED) {
            int e = errno;
            throw SamplerError(fmt::format("--host-profile: cannot map a {} KiB sample ring: {} (see "
                                           "kernel.perf_event_mlock_kb and ulimit -l)",
                                           bytes / 1024, std::strerror(e)));
        }
        rings_.push_back({std::move(fd), tid, map, bytes});
    }
    for (auto& r : rings_) ioctl(r.fd.get(), PERF_EVENT_IOC_ENABLE, 0);
}

void HostSampler::disable() {
    std::lock_guard lk(mu_);
    for (auto& r : rings_) ioctl(r.fd.get(), PERF_EVENT_IOC_DISABLE, 0);
}

void HostSampler::drain() {
    std::lock_guard lk(mu_);
    drain_locked();
}

RingCounts HostSampler::counts() const {
    std::lock_guard lk(mu_);
    return counts_;
}

void HostSampler::drain_locked() {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    for (auto& r : rings_) {
        auto* meta = static_cast<perf_event_mmap_page*>(r.map);
        size_t off = meta->data_offset ? meta->data_offset : page;
        size_t size = meta->data_size ? meta->data_size : kRingPages * page;
        std::span<const uint8_t> data(static_cast<const uint8_t*>(r.map) + off, size);
        uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
        uint64_t tail = meta->data_tail;
        tail = read_ring(data, tail, head, [&](std::span<const uint8_t> rec) {
            if (auto s = parse_record(rec, counts_)) sink_(*s);
        });
        __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);  // the space is the kernel's again
    }
}

// Wakes when a ring is a quarter full (or every 50 ms) and empties the rings,
// so a long batch does not overrun them.
void HostSampler::reader_loop() {
    std::vector<pollfd> fds;
    while (!stop_.load()) {
        {
            std::lock_guard lk(mu_);
            fds.clear();
            for (const auto& r : rings_) fds.push_back({r.fd.get(), POLLIN, 0});
        }
        if (fds.empty()) {
            usleep(20'000);
            continue;
        }
        if (poll(fds.data(), fds.size(), 50) <= 0) continue;
        drain();
        // A ring whose thread has ended stays readable (POLLHUP): do not spin on it.
        for (const auto& p : fds)
            if (p.revents & (POLLHUP | POLLERR)) {
                usleep(20'000);
                break;
            }
    }
}

} // namespace eb::profile
