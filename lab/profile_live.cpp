#include "lab/profile_live.h"

#include <chrono>
#include <memory>
#include <thread>

#include "profile/exit_reasons.h"
#include "profile/record.h"
#include "vmm/host.h"

namespace eb::lab {

std::optional<SlowExit> SlowExits::add(const profile::Event& e) {
    if (e.type == profile::EventType::Exit) open_[e.tid] = {e.ts_ns, e.a};
    if (e.type != profile::EventType::Entry) return std::nullopt;
    auto it = open_.find(e.tid);
    if (it == open_.end()) return std::nullopt;
    double us = double(e.ts_ns - it->second.first) / 1e3;
    std::optional<SlowExit> out;
    if (us > than_us_) out = SlowExit{e.tid, e.vcpu, profile::exit_reason_name(isa_, it->second.second), us};
    open_.erase(it);
    return out;
}

uint64_t watch_exits(const LiveSpec& spec, const std::atomic<bool>& interrupt, const LiveObserver& obs) {
    auto host = vmm::probe_host(std::nullopt);
    std::string isa = vmm::exit_isa(host.backend);
    std::vector<profile::Event> window;
    SlowExits slow(isa, spec.slower_than_us);
    profile::RecordOptions o;
    o.pids = spec.pids;
    o.all = spec.all;
    o.isa = isa;
    o.backend = host.backend_module;
    o.sink = [&](const profile::Event& e) {
        if (spec.slower_than_us < 0) window.push_back(e);
        else if (auto s = slow.add(e); s && obs.slow) obs.slow(*s);
    };
    auto rec = std::make_unique<profile::Recorder>(o);
    rec->start();
    using clock = std::chrono::steady_clock;
    auto t0 = clock::now();
    while (!interrupt.load()) {
        auto start = clock::now();
        while (!interrupt.load() && clock::now() - start < std::chrono::duration<double>(spec.interval_s)) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            rec->poll();
        }
        if (spec.slower_than_us < 0 && obs.interval) {
            obs.interval(profile::analyze(window, isa, spec.opt),
                         std::chrono::duration<double>(clock::now() - t0).count());
            window.clear();  // counters reset every interval
        }
        if (spec.once) break;
    }
    return rec->finish().lost;
}

} // namespace eb::lab
