#include "lab/trace_verify.h"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <unistd.h>

#include "lab/profile_session.h"
#include "profile/record.h"
#include "suite/registry.h"
#include "suite/verify.h"

namespace eb::lab {

namespace {

profile::EventType event_of(suite::TraceKey::Event e) {
    switch (e) {
    case suite::TraceKey::Msr: return profile::EventType::Msr;
    case suite::TraceKey::Pio: return profile::EventType::Pio;
    default: return profile::EventType::Mmio;
    }
}

bool wants_trace(const suite::TestResult& r, const suite::TestSpec* t) {
    return t && t->trace.event != suite::TraceKey::None && r.status == suite::Status::Unverified &&
           suite::measured(r);
}
} // namespace

uint64_t count_trace_hits(std::span<const profile::Event> events, const suite::TraceKey& key,
                          const std::vector<std::pair<int64_t, int64_t>>& windows) {
    auto type = event_of(key.event);
    uint64_t n = 0;
    for (const auto& e : events) {
        if (e.type != type || e.a != key.key) continue;
        // kvm_mmio: only satisfied accesses are the guest's (not the unsatisfied-read record).
        if (type == profile::EventType::Mmio && e.b == profile::kMmioUnsatisfiedRead) continue;
        auto ts = int64_t(e.ts_ns);
        if (std::any_of(windows.begin(), windows.end(), [&](const auto& w) { return ts >= w.first && ts <= w.second; }))
            ++n;
    }
    return n;
}

std::string trace_key_name(const suite::TraceKey& key) {
    return fmt::format("{} {:#x}", profile::event_type_name(event_of(key.event)), key.key);
}

void apply_trace_check(suite::TestResult& r, const suite::TestSpec& t, uint64_t hits, uint64_t iterations) {
    if (!iterations) return;
    r.exits.measured = double(hits) / double(iterations);
    r.exits.source = fmt::format("{}{} hits in a separate batch of {} iterations", suite::kTraceSource,
                                 trace_key_name(t.trace), iterations);
    r.exits.note = t.expect.may_be_zero ? t.expect.zero_why : "";
    r.status = suite::status_for(t.expect, r.exits);
}

void verify_by_trace(std::vector<suite::TestResult>& results, const vmm::HostFacts& host,
                     const std::function<suite::TestResult(const suite::TestSpec&)>& rerun,
                     const std::atomic<bool>& interrupt) {
    std::vector<std::pair<suite::TestResult*, const suite::TestSpec*>> todo;
    for (auto& r : results)
        if (const auto* t = suite::find_test(r.name); wants_trace(r, t)) todo.emplace_back(&r, t);
    if (todo.empty()) return;
    std::string path;
    try {
        path = make_temp_trace();
    } catch (const std::exception& e) {
        fmt::print(stderr, "exitbench: warning: no trace verification: {}\n", e.what());
        return;
    }
    profile::RecordOptions o;
    o.pids = {getpid()};
    o.require_kvm = false;
    o.out = path;
    o.isa = vmm::exit_isa(host.backend);
    o.backend = host.backend_module;
    o.tracepoints = {"kvm_msr", "kvm_pio", "kvm_mmio"};
    try {
        profile::Recorder rec(o);
        rec.start();
        std::vector<suite::TestResult> runs;
        for (auto& [r, t] : todo) {
            if (interrupt.load()) break;
            runs.push_back(rerun(*t));
            rec.poll();
        }
        rec.finish();
        auto trace = profile::read_trace(path);
        for (size_t i = 0; i < runs.size(); ++i) {
            auto& [r, t] = todo[i];
            const auto& v = runs[i];
            if (suite::is_failure(v.status) || v.batch_windows.empty()) {
                r->exits.note += fmt::format("; its verification batch did not run ({})", suite::status_name(v.status));
                continue;
            }
            uint64_t iters = v.iterations * v.batch_windows.size() * (t->parallel ? v.vcpus : 1);
            apply_trace_check(*r, *t, count_trace_hits(trace.events, t->trace, v.batch_windows), iters);
        }
    } catch (const std::exception& e) {
        for (auto& [r, t] : todo)
            r->exits.note += fmt::format("; {} could verify it, but tracing is unavailable: {} (run as root with "
                                         "tracefs mounted and writable)", trace_key_name(t->trace), e.what());
    }
    unlink(path.c_str());
}

} // namespace eb::lab
