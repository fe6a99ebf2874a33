// `exitbench profile live`: kvm_stat's refreshing view with latencies, from
// the same recorder and analyzer as record/report.
#include <chrono>
#include <fmt/format.h>
#include <iostream>
#include <map>
#include <thread>
#include <unistd.h>

#include "cli/app.h"
#include "cli/errors.h"
#include "cli/parse.h"
#include "cli/profile.h"
#include "profile/analyze.h"
#include "profile/exit_reasons.h"
#include "profile/record.h"
#include "vmm/host.h"

namespace eb::cli {

namespace {

// --than: prints each exit slower than `than_us` as its kvm_entry arrives.
class SlowExits {
public:
    SlowExits(std::string isa, double than_us) : isa_(std::move(isa)), than_us_(than_us) {}

    void add(const profile::Event& e) {
        if (e.type == profile::EventType::Exit) open_[e.tid] = {e.ts_ns, e.a};
        if (e.type != profile::EventType::Entry) return;
        auto it = open_.find(e.tid);
        if (it == open_.end()) return;
        double us = (e.ts_ns - it->second.first) / 1e3;
        if (us > than_us_)
            fmt::print("tid {}, vcpu {}: {} exit took {:.1f}us\n", e.tid, e.vcpu,
                       profile::exit_reason_name(isa_, it->second.second), us);
        open_.erase(it);
    }

private:
    std::string isa_;
    double than_us_;
    std::map<uint32_t, std::pair<uint64_t, uint64_t>> open_;  // tid -> (ts, reason)
};

// One interval's rows as CSV lines, all stamped `elapsed`.
void print_csv(const profile::Report& rep, double elapsed, double interval) {
    for (const auto& r : rep.rows)
        if (r.timed)
            fmt::print("{:.1f},{},{},{:.0f},{:.2f},{:.2f},{:.2f}\n", elapsed, r.name, r.count, r.count / interval,
                       r.mean_ns / 1e3, r.p99_ns / 1e3, r.max_ns / 1e3);
        else  // counts only: no latency to print
            fmt::print("{:.1f},{},{},{:.0f},,,\n", elapsed, r.name, r.count, r.count / interval);
}

// One interval as kvm_stat's table; `tty` redraws it in place.
void print_table(const profile::Report& rep, double elapsed, double interval, bool tty) {
    if (tty) fmt::print("\x1b[H\x1b[2J");
    fmt::print("exitbench profile live: last {:g} s, {:.0f} s in (Ctrl-C quits)\n", interval, elapsed);
    if (!rep.degraded.empty()) fmt::print("{}\n", rep.degraded);
    fmt::print("{:>40} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "event", "count", "per s", "mean us", "p99 us",
               "max us");
    for (const auto& r : rep.rows)
        if (r.timed)
            fmt::print("{:>40} {:>10} {:>10.0f} {:>10.2f} {:>10.2f} {:>10.2f}\n", r.name, r.count,
                       r.count / interval, r.mean_ns / 1e3, r.p99_ns / 1e3, r.max_ns / 1e3);
        else
            fmt::print("{:>40} {:>10} {:>10.0f} {:>10} {:>10} {:>10}\n", r.name, r.count, r.count / interval, "-",
                       "-", "-");
    if (rep.lost_events) fmt::print("lost events: {}\n", rep.lost_events);
}

} // namespace

int cmd_profile_live(const ProfileArgs& a, const profile::Options& opt, const std::atomic<bool>& interrupt) {
    if (a.pids.empty() && !a.all) throw UsageError("say which processes: -p PID (repeatable) or -a");
    // Refreshes faster than the 50 ms poll make no sense; slower than an hour is no live view.
    double interval = a.interval.empty() ? 1.0 : parse_duration("--delay", a.interval, 3600, 0.05);
    double than_us = a.than.empty() ? -1 : parse_duration("--than", a.than + "us", 1.0) * 1e6;
    auto host = vmm::probe_host(std::nullopt);
    std::string isa = vmm::exit_isa(host.backend);

    std::vector<profile::Event> window;
    SlowExits slow(isa, than_us);
    profile::RecordOptions o;
    o.pids = a.pids;
    o.all = a.all;
    o.isa = isa;
    o.backend = host.backend_module;
    o.sink = [&](const profile::Event& e) {
        window.push_back(e);
        if (than_us >= 0) slow.add(e);
    };
    auto rec = std::make_unique<profile::Recorder>(o);  // its errors are typed (profile/record.cpp)
    rec->start();
    bool tty = isatty(STDOUT_FILENO) && !a.once && !a.csv && than_us < 0;
    if (a.csv) fmt::print("time_s,event,count,rate_per_s,mean_us,p99_us,max_us\n");
    auto t0 = std::chrono::steady_clock::now();
    while (!interrupt.load()) {
        auto start = std::chrono::steady_clock::now();
        while (!interrupt.load() && std::chrono::steady_clock::now() - start < std::chrono::duration<double>(interval)) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            rec->poll();
        }
        // Counters reset every interval, as perf kvm stat live does.
        auto rep = profile::analyze(window, isa, opt);
        window.clear();
        double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (than_us >= 0) {
            // --than prints slow exits as they come; nothing else.
        } else if (a.csv) {
            print_csv(rep, el, interval);
        } else {
            print_table(rep, el, interval, tty);
        }
        std::cout << std::flush;
        if (a.once) break;
    }
    auto res = rec->finish();
    if (res.lost) fmt::print(stderr, "exitbench: {} events were lost in the ring buffer\n", res.lost);
    return kOk;
}

} // namespace eb::cli
