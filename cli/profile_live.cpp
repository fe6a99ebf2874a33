// `exitbench profile live`: kvm_stat's refreshing view with latencies, from
// the same recorder and analyzer as record/report.
#include <fmt/format.h>
#include <iostream>
#include <unistd.h>

#include "cli/app.h"
#include "cli/errors.h"
#include "cli/parse.h"
#include "cli/profile.h"
#include "lab/profile_live.h"

namespace eb::cli {

namespace {

// One interval's rows as CSV lines, all stamped `elapsed`.
void print_csv(const lab::ProfileReport& rep, double elapsed, double interval) {
    for (const auto& r : rep.rows)
        if (r.timed)
            fmt::print("{:.1f},{},{},{:.0f},{:.2f},{:.2f},{:.2f}\n", elapsed, r.name, r.count, r.count / interval,
                       r.mean_ns / 1e3, r.p99_ns / 1e3, r.max_ns / 1e3);
        else  // counts only: no latency to print
            fmt::print("{:.1f},{},{},{:.0f},,,\n", elapsed, r.name, r.count, r.count / interval);
}

// One interval as kvm_stat's table; `tty` redraws it in place.
void print_table(const lab::ProfileReport& rep, double elapsed, double interval, bool tty) {
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

int cmd_profile_live(const ProfileArgs& a, const lab::ProfileOptions& opt, const std::atomic<bool>& interrupt) {
    if (a.pids.empty() && !a.all) throw UsageError("say which processes: -p PID (repeatable) or -a");
    lab::LiveSpec spec;
    spec.pids = a.pids;
    spec.all = a.all;
    // Refreshes faster than the 50 ms poll make no sense; slower than an hour is no live view.
    spec.interval_s = a.interval.empty() ? 1.0 : parse_duration("--delay", a.interval, 3600, 0.05);
    spec.slower_than_us = a.than.empty() ? -1 : parse_duration("--than", a.than + "us", 1.0) * 1e6;
    spec.once = a.once;
    spec.opt = opt;
    bool tty = isatty(STDOUT_FILENO) && !a.once && !a.csv && spec.slower_than_us < 0;
    if (a.csv) fmt::print("time_s,event,count,rate_per_s,mean_us,p99_us,max_us\n");
    lab::LiveObserver obs;
    obs.interval = [&](const lab::ProfileReport& rep, double elapsed) {
        if (a.csv) print_csv(rep, elapsed, spec.interval_s);
        else print_table(rep, elapsed, spec.interval_s, tty);
        std::cout << std::flush;
    };
    obs.slow = [](const lab::SlowExit& s) {
        fmt::print("tid {}, vcpu {}: {} exit took {:.1f}us\n", s.tid, s.vcpu, s.reason, s.us);
        std::cout << std::flush;
    };
    if (auto lost = lab::watch_exits(spec, interrupt, obs))
        fmt::print(stderr, "exitbench: {} events were lost in the ring buffer\n", lost);
    return kOk;
}

} // namespace eb::cli
