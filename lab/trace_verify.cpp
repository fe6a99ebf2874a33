#include "lab/trace_verify.h"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <unistd.h>

#include "lab/profile_session.h"
#include "profile/record.h"
#include "suite/registry.h"
#include "suite/verify.h"
#include "vmm/guest_symbols.h"

namespace eb::lab {

namespace {

using profile::EventType;

// The tracepoints a KVM exit shows as (all but the emulator's): none of them
// in a batch that must not exit.
const std::vector<EventType> kExitEvents = {EventType::Msr,   EventType::Pio,     EventType::Mmio,
                                            EventType::Cpuid, EventType::ApicIpi, EventType::AcceptIrq};

bool wants_trace(const suite::TestResult& r, const suite::TestSpec* t) {
    return t && t->trace.event != suite::TraceKey::None && r.status == suite::Status::Unverified &&
           suite::measured(r);
}

std::string hex_bytes(const std::vector<uint8_t>& b) {
    std::string s;
    for (auto x : b) s += fmt::format("{}{:02x}", s.empty() ? "" : " ", x);
    return s;
}

struct Todo {
    suite::TestResult* result;
    const suite::TestSpec* test;
    std::vector<uint64_t> rips;  // Emulate only
};

} // namespace

TraceMatch trace_match(const suite::TraceKey& key, const std::vector<uint64_t>& rips) {
    using K = suite::TraceKey;
    switch (key.event) {
    case K::Msr: return {{EventType::Msr}, {key.key}};
    case K::Pio: return {{EventType::Pio}, {key.key}};
    case K::Mmio: return {{EventType::Mmio}, {key.key}};
    case K::Cpuid: return {{EventType::Cpuid}, {key.key}};
    case K::ApicIpi: return {{EventType::ApicIpi}, {}};
    case K::AcceptIrq: return {{EventType::AcceptIrq}, {}};
    case K::Emulate: return {{EventType::EmulateInsn}, rips.empty() ? std::vector<uint64_t>{~0ull} : rips};
    case K::NoExit: return {kExitEvents, {}};
    case K::HostFault: return {{EventType::HostFault}, {}};
    case K::None: break;
    }
    return {};
}

uint64_t count_trace_hits(std::span<const profile::Event> events, const TraceMatch& m,
                          const std::vector<std::pair<int64_t, int64_t>>& windows) {
    uint64_t n = 0;
    for (const auto& e : events) {
        if (std::find(m.types.begin(), m.types.end(), e.type) == m.types.end()) continue;
        if (!m.keys.empty() && std::find(m.keys.begin(), m.keys.end(), e.a) == m.keys.end()) continue;
        // kvm_mmio: only satisfied accesses are the guest's (not the unsatisfied-read record).
        if (e.type == EventType::Mmio && e.b == profile::kMmioUnsatisfiedRead) continue;
        auto ts = int64_t(e.ts_ns);
        if (std::any_of(windows.begin(), windows.end(), [&](const auto& w) { return ts >= w.first && ts <= w.second; }))
            ++n;
    }
    return n;
}

uint64_t count_trace_hits(std::span<const profile::Event> events, const suite::TraceKey& key,
                          const std::vector<std::pair<int64_t, int64_t>>& windows) {
    return count_trace_hits(events, trace_match(key), windows);
}

std::string trace_key_name(const suite::TraceKey& key) {
    using K = suite::TraceKey;
    switch (key.event) {
    case K::Msr: return fmt::format("kvm_msr {:#x}", key.key);
    case K::Pio: return fmt::format("kvm_pio {:#x}", key.key);
    case K::Mmio: return fmt::format("kvm_mmio {:#x}", key.key);
    case K::Cpuid: return fmt::format("kvm_cpuid {:#x}", key.key);
    case K::ApicIpi: return "kvm_apic_ipi";
    case K::AcceptIrq: return "kvm_apic_accept_irq";
    case K::Emulate: return "emulated";
    case K::NoExit: return "no exit tracepoint";
    case K::HostFault: return "host page fault";
    case K::None: break;
    }
    return "none";
}

void apply_trace_check(suite::TestResult& r, const suite::TestSpec& t, uint64_t hits, uint64_t iterations,
                       const std::string& where) {
    if (!iterations) return;
    // Where the key counts one part of the iteration (an emulated instruction,
    // the deadline write of several exits) it is judged against its own count.
    suite::Expect e = t.trace.per_iter ? suite::kernel_exits(t.trace.per_iter) : t.expect;
    r.exits.measured = double(hits) / double(iterations);
    r.exits.expected = e.per_iter;
    r.exits.expected_max = std::max(e.per_iter, e.max_per_iter);
    if (t.trace.event == suite::TraceKey::Emulate) r.exits.kind = "emulated";
    r.exits.source = fmt::format("{}{}: {} hits{} in a separate batch of {} iterations", suite::kTraceSource,
                                 trace_key_name(t.trace), hits, where, iterations);
    r.exits.note = t.expect.may_be_zero && !t.trace.per_iter ? t.expect.zero_why : "";
    if (t.trace.event == suite::TraceKey::Emulate)
        r.exits.note = "kvm_pvm emulates guest CPL0 code: the trace counts the body's instruction in KVM's "
                       "emulator, which is where this backend handles it, not a hardware exit";
    else if (t.trace.event == suite::TraceKey::HostFault)
        r.exits.note = "kvm_pvm emulates the guest's write and performs it through the host mapping: the first "
                       "touch faults in the host kernel (exceptions:page_fault_kernel), not in KVM's MMU "
                       "(kvm_page_fault does not fire), so the trace counts the host fault";
    else if (t.trace.per_iter)
        r.exits.note = fmt::format("the trace counts {} per iteration of the expected {}", trace_key_name(t.trace),
                                   t.expect.describe());
    r.status = suite::status_for(e, r.exits);
}

std::vector<uint64_t> body_rips(const suite::TestSpec& t, const vmm::HostFacts& host, std::string& why) {
    const std::string& body = host.cpu_vendor == "AuthenticAMD" ? t.body.amd : t.body.intel;
    const auto& syms = vmm::embedded_batch_symbols();
    auto it = syms.find(body);
    if (it == syms.end()) {
        why = "the guest's symbols have no eb_batch_" + body;
        return {};
    }
    auto rips = vmm::find_code(vmm::GuestImage::embedded(), it->second, t.trace.opcode);
    if (rips.empty()) why = fmt::format("no '{}' in eb_batch_{}", hex_bytes(t.trace.opcode), body);
    return rips;
}

std::string rip_filter(const std::vector<uint64_t>& rips) {
    std::string f;
    for (auto r : rips) f += fmt::format("{}rip == {:#x}", f.empty() ? "" : " || ", r);
    return f;
}

namespace {

// The verification batches, recorded; each result judged from its windows.
void trace_and_judge(std::vector<Todo>& todo, const vmm::HostFacts& host,
                     const std::function<suite::TestResult(const suite::TestSpec&)>& rerun,
                     const std::atomic<bool>& interrupt, const std::string& path) {
    profile::RecordOptions o;
    o.pids = {getpid()};
    o.require_kvm = false;
    o.out = path;
    o.isa = vmm::exit_isa(host.backend);
    o.backend = host.backend_module;
    o.tracepoints = {"kvm_msr", "kvm_pio", "kvm_mmio", "kvm_cpuid", "kvm_apic_ipi", "kvm_apic_accept_irq"};
    std::vector<uint64_t> rips;
    for (const auto& d : todo) rips.insert(rips.end(), d.rips.begin(), d.rips.end());
    if (std::any_of(todo.begin(), todo.end(), [](const Todo& d) { return d.test->trace.event == suite::TraceKey::HostFault; }))
        o.tracepoints.push_back("page_fault_kernel");
    // Only with a filter: unfiltered it fires on every instruction a software backend emulates.
    if (!rips.empty()) {
        o.tracepoints.push_back("kvm_emulate_insn");
        o.filters = {{"kvm_emulate_insn", rip_filter(rips)}};
    }
    profile::Recorder rec(o);
    rec.start();
    std::vector<suite::TestResult> runs;
    for (auto& d : todo) {
        if (interrupt.load()) break;
        runs.push_back(rerun(*d.test));
        rec.poll();
    }
    rec.finish();
    auto trace = profile::read_trace(path);
    for (size_t i = 0; i < runs.size(); ++i) {
        auto& [r, t, body] = todo[i];
        const auto& v = runs[i];
        if (suite::is_failure(v.status) || v.batch_windows.empty()) {
            r->exits.note += fmt::format("; its verification batch did not run ({})", suite::status_name(v.status));
            continue;
        }
        uint64_t iters = v.iterations * v.batch_windows.size() * (t->parallel ? v.vcpus : 1);
        std::string where;
        for (auto rip : body) where += fmt::format("{}{:#x}", where.empty() ? " at rip " : ", ", rip);
        if (!body.empty()) where += " (" + hex_bytes(t->trace.opcode) + ")";
        apply_trace_check(*r, *t, count_trace_hits(trace.events, trace_match(t->trace, body), v.batch_windows),
                          iters, where);
    }
}

} // namespace

void verify_by_trace(std::vector<suite::TestResult>& results, const vmm::HostFacts& host,
                     const std::function<suite::TestResult(const suite::TestSpec&)>& rerun,
                     const std::atomic<bool>& interrupt) {
    std::vector<Todo> todo;
    for (auto& r : results) {
        const auto* t = suite::find_test(r.name);
        if (!wants_trace(r, t)) continue;
        // Only a software backend's emulator faults in the host kernel on the guest's behalf.
        if (t->trace.event == suite::TraceKey::HostFault && host.backend != vmm::Backend::Pvm) continue;
        Todo d{&r, t, {}};
        if (t->trace.event == suite::TraceKey::Emulate) {
            std::string why;
            d.rips = body_rips(*t, host, why);
            if (d.rips.empty()) {
                r.exits.note += "; kvm_emulate_insn could verify it, but " + why;
                continue;
            }
        }
        todo.push_back(std::move(d));
    }
    if (todo.empty()) return;
    std::string path;
    try {
        path = make_temp_trace();
    } catch (const std::exception& e) {
        fmt::print(stderr, "exitbench: warning: no trace verification: {}\n", e.what());
        return;
    }
    try {
        trace_and_judge(todo, host, rerun, interrupt, path);
    } catch (const std::exception& e) {
        for (auto& d : todo)
            d.result->exits.note += fmt::format("; {} could verify it, but tracing is unavailable: {} (run as root "
                                                "with tracefs mounted and writable)", trace_key_name(d.test->trace),
                                                e.what());
    }
    unlink(path.c_str());
}

} // namespace eb::lab
