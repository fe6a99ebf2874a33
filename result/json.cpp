#include "sys/error.h"
#include "result/json.h"

#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "result/host_samples_json.h"
#include "result/json_fields.h"
#include "result/wall_json.h"
#include "stats/inference.h"
#include "stats/summary.h"

namespace eb::result {

using nlohmann::json;

namespace {

json host_json(const vmm::HostFacts& h) {
    return {{"cpu_model", h.cpu_model},         {"cpu_vendor", h.cpu_vendor},
            {"kernel_release", h.kernel_release}, {"backend", vmm::backend_name(h.backend)},
            {"backend_module", h.backend_module}, {"tsc_mhz", h.tsc_mhz},
            {"tsc_source", h.tsc_source},         {"tsc_calibrated_mhz", h.tsc_calibrated_mhz},
            {"host_cpus", h.host_cpus}};
}

json provenance_json(const suite::Provenance& p) {
    json imported = nullptr;
    if (p.imported) {
        imported = {{"source", p.imported->source}, {"file", p.imported->file}, {"sha256", p.imported->sha256}};
        // Only a run made of several files has "logs": one file's run reads as before.
        for (const auto& l : p.imported->logs)
            imported["logs"].push_back({{"file", l.file}, {"sha256", l.sha256}, {"tests", l.tests}});
    }
    json load = nullptr;
    if (p.module_load) {
        json params = json::object();
        for (const auto& [k, v] : p.module_load->params) params[k] = v;
        load = {{"module", p.module_load->module}, {"id", p.module_load->id}, {"params", params}};
    }
    return {{"timestamp_utc", p.timestamp_utc}, {"hostname", p.hostname}, {"argv", p.argv},
            {"git_describe", p.git_describe},   {"boot_id", p.boot_id},   {"imported", imported},
            {"module_load", load}};
}

// A module A/B's load (schema_version 6), or nothing.
std::optional<suite::ModuleLoad> module_load_from(const json& p) {
    const json& m = member(p, "module_load", "provenance");
    if (m.is_null()) return std::nullopt;
    suite::ModuleLoad out{field<std::string>(m, "module", "module_load"), field<std::string>(m, "id", "module_load"), {}};
    const json& params = member(m, "params", "module_load");
    if (!params.is_object()) wrong_type("params", "module_load");
    for (const auto& [k, v] : params.items()) {
        if (!v.is_string()) wrong_type(k.c_str(), "module_load's params");
        out.params.emplace_back(k, v.get<std::string>());
    }
    return out;
}

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// JSON keeps at most this many raw per-exit samples per test (the first, in run
// order); percentiles are computed from all of them before they are cut.
constexpr size_t kJsonPerExitSamples = 100000;

json per_exit_json(const suite::TestResult& t, const std::optional<double>& overhead) {
    if (t.per_exit_cycles.empty()) return nullptr;
    const auto& xs = t.per_exit_cycles;
    double off = overhead && t.name != "baseline" ? *overhead : 0;
    json pct = json::object();
    for (auto [name, q] : {std::pair{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"p999", 0.999}, {"max", 1.0}})
        pct[name] = stats::quantile(xs, q) - off;
    size_t keep = std::min(xs.size(), kJsonPerExitSamples);
    return {{"count", xs.size()},
            {"overhead_cycles", overhead ? json(*overhead) : json(nullptr)},
            {"percentiles_minus_overhead", pct},
            {"samples_raw", std::vector<double>(xs.begin(), xs.begin() + keep)}};
}

json host_profile_json(const std::optional<suite::HostProfile>& p) {
    if (!p) return nullptr;
    return {{"reason", p->reason}, {"count", p->count}, {"per_iter", p->per_iter}, {"mean_ns", p->mean_ns},
            {"p50_ns", p->p50_ns}, {"p99_ns", p->p99_ns}, {"note", p->note},
            {"harness_exits", p->harness_exits}, {"harness_mean_ns", p->harness_mean_ns}};
}

json userspace_split_json(const std::optional<suite::UserspaceSplit>& s) {
    if (!s) return nullptr;
    return {{"exits", s->exits}, {"vmm_p50_cycles", s->vmm_p50}, {"vmm_p99_cycles", s->vmm_p99},
            {"vmm_mean_cycles", s->vmm_mean},
            {"exit_cycles", s->exit_cycles}, {"kernel_cycles", s->kernel_cycles}};
}

json guest_state_json(const suite::GuestStateSeen& g) {
    return {{"efer", g.efer ? json(*g.efer) : json(nullptr)}, {"msrs", g.msrs}, {"cpuid", g.cpuid}};
}

json env_json(const std::vector<std::pair<std::string, std::string>>& env) {
    json j = json::object();
    for (const auto& [k, v] : env) j[k] = v;
    return j;
}

json knobs_json(const suite::RunSettings& s) {
    json msrs = json::array();
    for (const auto& k : s.guest_msrs) msrs.push_back({{"name", k.name}, {"index", k.index}, {"value", k.value}});
    auto tri = [](const std::optional<bool>& b) { return b ? json(*b ? "on" : "off") : json(nullptr); };
    return {{"guest_msrs", msrs},
            {"guest_efer", {{"nx", tri(s.guest_efer.nx)}, {"sce", tri(s.guest_efer.sce)}}},
            {"cpuid", s.cpuid_edits}};
}

json sessions_json(const suite::TestResult& t) {
    json out = json::array();
    for (const auto& s : t.sessions)
        out.push_back({{"iterations_per_batch", s.iterations},
                       {"batch_reused", s.batch_reused},
                       {"median_cycles", stats::median(s.samples)},
                       {"samples_cycles_per_iter", s.samples}});
    return out;
}

json summary_json(const suite::TestResult& t, const std::optional<double>& base, double tsc_mhz) {
    auto h = suite::headline(t);
    if (!h) return nullptr;
    auto all = suite::all_repeats(t);
    auto out = stats::outliers(all);
    return {{"cycles", h->cycles},
            {"interval_95", {h->ci.lo, h->ci.hi}},
            {"interval_coverage", h->coverage},
            {"interval_level", h->between_sessions ? "between-session" : "within-session"},
            {"interval_note", h->between_sessions
                                  ? "t interval of the log session medians: describes run-to-run reproducibility"
                                  : "interval of one session's median: it does not describe run-to-run "
                                    "reproducibility (use --sessions N)"},
            {"sessions", h->sessions},
            {"within_session_cv", h->within_cv},
            {"between_session_cv", h->between_sessions ? json(h->between_cv) : json(nullptr)},
            {"outlier_repeats", out.low.size() + out.high.size()},
            {"min_cycles", stats::min(all)},
            {"max_cycles", stats::max(all)},
            {"ns", tsc_mhz > 0 ? json(h->cycles / tsc_mhz * 1e3) : json(nullptr)},  // 0: unknown (imported)
            {"minus_baseline_cycles", base && t.name != "baseline" ? json(h->cycles - *base) : json(nullptr)}};
}

json result_json(const suite::TestResult& t, const std::optional<double>& base,
                 const std::optional<double>& overhead, double tsc_mhz) {
    return {{"name", t.name},
            {"status", suite::status_name(t.status)},
            {"detail", t.detail},
            {"iterations_per_batch", t.iterations},
            {"vcpus", t.vcpus},
            {"irqs_per_iter", opt(t.irqs_per_iter)},
            {"ipi_latency_cycles", t.ipi_latency_cycles},
            {"sessions", sessions_json(t)},
            {"summary", summary_json(t, base, tsc_mhz)},
            {"exits",
             {{"kind", t.exits.kind},
              {"expected_per_iter", t.exits.expected},
              {"expected_max_per_iter", t.exits.expected_max},
              {"measured_per_iter", opt(t.exits.measured)},
              {"source", t.exits.source},
              {"note", t.exits.note}}},
            {"kvm_stats_per_iter", t.kvm_stats_per_iter},
            {"host_checks", t.host_checks},
            {"warnings", t.warnings},
            {"guest_state", guest_state_json(t.guest_state)},
            {"per_exit", per_exit_json(t, overhead)},
            {"host_profile", host_profile_json(t.host_profile)},
            {"host_samples", host_samples_json(t.host_samples, tsc_mhz)},
            {"userspace_split", userspace_split_json(t.userspace_split)},
            {"not_rerun_after_hang", t.sessions_not_rerun ? json{{"hung_in_session", t.hung_in_session},
                                                                 {"sessions_skipped", t.sessions_not_rerun}}
                                                          : json(nullptr)},
            {"wall_seconds", t.wall_seconds}};
}

// An imported run's host is unknown: its TSC frequency is 0.
vmm::HostFacts host_from(const json& h, bool imported) {
    vmm::HostFacts f;
    f.cpu_model = field<std::string>(h, "cpu_model", "host");
    f.cpu_vendor = field<std::string>(h, "cpu_vendor", "host");
    f.kernel_release = field<std::string>(h, "kernel_release", "host");
    f.backend = vmm::backend_from_name(field<std::string>(h, "backend", "host"));
    f.backend_module = field<std::string>(h, "backend_module", "host");
    f.tsc_mhz = field<double>(h, "tsc_mhz", "host");
    if (!(f.tsc_mhz > 0 || (imported && f.tsc_mhz == 0))) wrong_type("tsc_mhz", "host");
    f.tsc_source = field<std::string>(h, "tsc_source", "host");
    f.tsc_calibrated_mhz = field<double>(h, "tsc_calibrated_mhz", "host");
    f.host_cpus = field<int>(h, "host_cpus", "host");
    return f;
}

void knobs_from(const json& kn, suite::RunSettings& s) {
    for (const json& m : member(kn, "guest_msrs", "knobs"))
        s.guest_msrs.push_back({field<std::string>(m, "name", "a guest MSR"), field<uint32_t>(m, "index", "a guest MSR"),
                                field<uint64_t>(m, "value", "a guest MSR")});
    const json& ef = member(kn, "guest_efer", "knobs");
    for (const char* bit : {"nx", "sce"})
        if (!member(ef, bit, "guest_efer").is_null())
            (std::string(bit) == "nx" ? s.guest_efer.nx : s.guest_efer.sce) =
                field<std::string>(ef, bit, "guest_efer") == "on";
    s.cpuid_edits = field<std::string>(kn, "cpuid", "knobs");
}

suite::Provenance provenance_from(const json& p, int version) {
    suite::Provenance out{field<std::string>(p, "timestamp_utc", "provenance"),
                          field<std::string>(p, "hostname", "provenance"),
                          field<std::vector<std::string>>(p, "argv", "provenance"),
                          field<std::string>(p, "git_describe", "provenance"),
                          field<std::string>(p, "boot_id", "provenance")};
    if (version >= 6) out.module_load = module_load_from(p);
    if (version < 4) return out;
    const json& im = member(p, "imported", "provenance");
    if (im.is_null()) return out;
    out.imported = suite::ImportSource{field<std::string>(im, "source", "imported"),
                                       field<std::string>(im, "file", "imported"),
                                       field<std::string>(im, "sha256", "imported")};
    if (!im.is_object() || !im.contains("logs")) return out;  // one file, or written before "logs"
    const json& logs = im.at("logs");
    if (!logs.is_array()) wrong_type("logs", "imported");
    for (const json& l : logs)
        out.imported->logs.push_back({field<std::string>(l, "file", "an imported log"),
                                      field<std::string>(l, "sha256", "an imported log"),
                                      field<std::vector<std::string>>(l, "tests", "an imported log")});
    return out;
}

suite::RunSettings settings_from(const json& s, int version) {
    suite::RunSettings r;
    if (!member(s, "iterations", "settings").is_null()) r.iterations = field<uint64_t>(s, "iterations", "settings");
    r.repeats = field<uint32_t>(s, "repeats", "settings");
    if (s.contains("warmup")) r.warmup = field<uint32_t>(s, "warmup", "settings");  // absent before --warmup
    if (version >= 2) r.sessions = field<uint32_t>(s, "sessions", "settings");
    r.time_goal_s = field<double>(s, "time_goal_s", "settings");
    if (!member(s, "cpu", "settings").is_null()) r.cpu = field<int>(s, "cpu", "settings");
    r.watchdog_s = field<double>(s, "watchdog_s", "settings");
    r.smp = field<uint32_t>(s, "smp", "settings");
    r.pin = numbers<int>(s, "pin", "settings");
    r.pin_auto = field<bool>(s, "pin_auto", "settings");
    r.apic = field<std::string>(s, "apic", "settings");
    knobs_from(member(s, "knobs", "settings"), r);
    r.baseline = field<bool>(s, "baseline", "settings");
    r.per_exit = field<bool>(s, "per_exit", "settings");
    r.profile = field<bool>(s, "profile", "settings");
    if (s.contains("retry_hung")) r.retry_hung = field<bool>(s, "retry_hung", "settings");  // absent before it
    return r;
}

// Version 1 kept one session's repeats flat; version 2 keeps every session.
// Cycles per iteration are positive: a sample <= 0 (or NaN) would reach the
// log-scale statistics as NaN or -inf.
std::vector<double> samples_of(const json& j, const json& t, const char* where) {
    auto xs = numbers<double>(j, "samples_cycles_per_iter", where);
    for (double x : xs)
        if (!(x > 0))
            throw InputError(fmt::format("test \"{}\": sample {} in samples_cycles_per_iter is not a positive "
                                                 "cycle count", t.value("name", std::string("?")), x));
    return xs;
}

std::vector<suite::SessionSamples> sessions_from(const json& t, int version, uint64_t iterations) {
    std::vector<suite::SessionSamples> out;
    if (version == 1) {
        auto xs = samples_of(t, t, "a result");
        if (!xs.empty()) out.push_back({std::move(xs), iterations});
        return out;
    }
    const json& ss = member(t, "sessions", "a result");
    if (!ss.is_array()) wrong_type("sessions", "a result");
    for (const json& s : ss) {
        auto xs = samples_of(s, t, "a session");
        if (xs.empty()) continue;
        out.push_back({std::move(xs), field<uint64_t>(s, "iterations_per_batch", "a session")});
        if (s.contains("batch_reused")) out.back().batch_reused = field<bool>(s, "batch_reused", "a session");
    }
    return out;
}

void exits_from(const json& e, suite::ExitCheck& x) {
    x.kind = field<std::string>(e, "kind", "exits");
    x.expected = field<double>(e, "expected_per_iter", "exits");
    x.expected_max = field<double>(e, "expected_max_per_iter", "exits");
    if (!member(e, "measured_per_iter", "exits").is_null()) x.measured = field<double>(e, "measured_per_iter", "exits");
    x.source = field<std::string>(e, "source", "exits");
    x.note = field<std::string>(e, "note", "exits");
}

std::optional<suite::HostProfile> host_profile_from(const json& hp, int version) {
    if (hp.is_null()) return std::nullopt;
    suite::HostProfile p{field<std::string>(hp, "reason", "host_profile"), field<uint64_t>(hp, "count", "host_profile"),
                         field<double>(hp, "per_iter", "host_profile"), field<double>(hp, "mean_ns", "host_profile"),
                         field<double>(hp, "p50_ns", "host_profile"), field<double>(hp, "p99_ns", "host_profile"),
                         field<std::string>(hp, "note", "host_profile")};
    if (version >= 4) {  // before 4 the harness's exits were counted with the test's
        p.harness_exits = field<uint64_t>(hp, "harness_exits", "host_profile");
        p.harness_mean_ns = field<double>(hp, "harness_mean_ns", "host_profile");
    }
    return p;
}

std::optional<suite::UserspaceSplit> userspace_split_from(const json& s) {
    if (s.is_null()) return std::nullopt;
    const char* w = "userspace_split";
    return suite::UserspaceSplit{field<uint64_t>(s, "exits", w), field<double>(s, "vmm_p50_cycles", w),
                                 field<double>(s, "vmm_p99_cycles", w), field<double>(s, "vmm_mean_cycles", w),
                                 field<double>(s, "exit_cycles", w),
                                 field<double>(s, "kernel_cycles", w)};
}

void guest_state_from(const json& g, suite::GuestStateSeen& s) {
    if (!member(g, "efer", "guest_state").is_null()) s.efer = field<uint64_t>(g, "efer", "guest_state");
    s.msrs = field<std::map<std::string, uint64_t>>(g, "msrs", "guest_state");
    s.cpuid = field<std::map<std::string, bool>>(g, "cpuid", "guest_state");
}

suite::TestResult result_from(const json& t, int version) {
    suite::TestResult x;
    x.name = field<std::string>(t, "name", "a result");
    auto st = suite::status_from_name(field<std::string>(t, "status", "a result"));
    if (!st) throw InputError("unknown status in result " + x.name);
    x.status = *st;
    x.detail = field<std::string>(t, "detail", "a result");
    x.iterations = field<uint64_t>(t, "iterations_per_batch", "a result");
    x.vcpus = field<uint32_t>(t, "vcpus", "a result");
    if (!member(t, "irqs_per_iter", "a result").is_null()) x.irqs_per_iter = field<double>(t, "irqs_per_iter", "a result");
    x.ipi_latency_cycles = numbers<double>(t, "ipi_latency_cycles", "a result");
    x.sessions = sessions_from(t, version, x.iterations);
    exits_from(member(t, "exits", "a result"), x.exits);
    x.kvm_stats_per_iter = field<std::map<std::string, double>>(t, "kvm_stats_per_iter", "a result");
    x.host_checks = field<std::vector<std::string>>(t, "host_checks", "a result");
    x.warnings = field<std::vector<std::string>>(t, "warnings", "a result");
    x.wall_seconds = field<double>(t, "wall_seconds", "a result");
    x.host_profile = host_profile_from(member(t, "host_profile", "a result"), version);
    if (version >= 4) x.userspace_split = userspace_split_from(member(t, "userspace_split", "a result"));
    if (version >= 5) x.host_samples = host_samples_from(member(t, "host_samples", "a result"), x.name);
    const json& pe = member(t, "per_exit", "a result");
    if (!pe.is_null()) x.per_exit_cycles = numbers<double>(pe, "samples_raw", "per_exit");
    guest_state_from(member(t, "guest_state", "a result"), x.guest_state);
    if (t.contains("not_rerun_after_hang") && !t.at("not_rerun_after_hang").is_null()) {
        const json& h = t.at("not_rerun_after_hang");
        x.hung_in_session = field<uint32_t>(h, "hung_in_session", "not_rerun_after_hang");
        x.sessions_not_rerun = field<uint32_t>(h, "sessions_skipped", "not_rerun_after_hang");
    }
    return x;
}

} // namespace

json to_json(const suite::RunReport& r) {
    auto base = suite::baseline_cycles(r);
    json results = json::array();
    auto overhead = suite::per_exit_overhead(r);
    for (const auto& t : r.results) results.push_back(result_json(t, base, overhead, r.host.tsc_mhz));
    const auto& s = r.settings;
    json doc = {{"schema", "exitbench-run"},
            {"schema_version", kSchemaVersion},
            {"tool_version", r.tool_version},
            {"provenance", provenance_json(r.provenance)},
            {"host", host_json(r.host)},
            {"env", env_json(r.env)},
            {"settings",
             {{"iterations", s.iterations ? json(*s.iterations) : json(nullptr)},
              {"repeats", s.repeats},
              {"warmup", s.warmup},
              {"sessions", s.sessions},
              {"order_seed", s.order_seed},
              {"time_goal_s", s.time_goal_s},
              {"cpu", s.cpu ? json(*s.cpu) : json(nullptr)},
              {"smp", s.smp},
              {"pin", s.pin},
              {"pin_auto", s.pin_auto},
              {"apic", s.apic},
              {"knobs", knobs_json(s)},
              {"watchdog_s", s.watchdog_s},
              {"baseline", s.baseline},
              {"per_exit", s.per_exit},
              {"profile", s.profile},
              {"retry_hung", s.retry_hung}}},
            {"interrupted", r.interrupted},
            {"baseline_cycles", opt(base)},
            {"results", results}};
    if (r.wall_time) doc["wall_time"] = wall_time_json(*r.wall_time);
    if (r.boot) {
        json params = json::object();
        for (const auto& [k, v] : r.boot->module_params) params[k] = v;
        doc["boot"] = {{"image", r.boot->image},       {"release", r.boot->release},
                       {"cmdline", r.boot->cmdline},   {"boot_id", r.boot->boot_id},
                       {"execution", r.boot->execution}, {"machine", r.boot->machine},
                       {"module_params", params}};
        if (r.boot->execution == "emulated") doc["boot"]["note"] = suite::kEmulatedNote;
    }
    return doc;
}

namespace {

suite::BootRecord boot_from(const json& b) {
    if (!b.is_object()) wrong_type("boot", "the document");
    suite::BootRecord out{field<std::string>(b, "image", "boot"),   field<std::string>(b, "release", "boot"),
                          field<std::string>(b, "cmdline", "boot"), field<std::string>(b, "boot_id", "boot"),
                          field<std::string>(b, "execution", "boot"), field<std::string>(b, "machine", "boot")};
    const json& params = member(b, "module_params", "boot");
    if (!params.is_object()) wrong_type("module_params", "boot");
    for (const auto& [k, v] : params.items()) out.module_params.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
    return out;
}

} // namespace

suite::RunReport from_json(const json& j) {
    if (!j.is_object() || !j.contains("schema") || j.at("schema") != "exitbench-run")
        throw InputError("not an exitbench run result (no \"schema\": \"exitbench-run\")");
    int v = field<int>(j, "schema_version", "the document");
    if (v < 1 || v > kSchemaVersion)
        throw InputError("schema version " + std::to_string(v) + " is not supported (this " +
                                 "exitbench reads versions 1 to " + std::to_string(kSchemaVersion) + ")");
    suite::RunReport r;
    r.schema_version = v;
    r.tool_version = field<std::string>(j, "tool_version", "the document");
    r.interrupted = field<bool>(j, "interrupted", "the document");
    if (v >= 3) r.provenance = provenance_from(member(j, "provenance", "the document"), v);
    r.host = host_from(member(j, "host", "the document"), r.provenance.imported.has_value());
    r.settings = settings_from(member(j, "settings", "the document"), v);
    const json& env = member(j, "env", "the document");
    if (!env.is_object()) wrong_type("env", "the document");
    for (const auto& [k, val] : env.items()) r.env.emplace_back(k, val.is_string() ? val.get<std::string>() : val.dump());
    const json& results = member(j, "results", "the document");
    if (!results.is_array()) wrong_type("results", "the document");
    for (const json& t : results) r.results.push_back(result_from(t, v));
    if (j.contains("wall_time")) r.wall_time = wall_time_from(j.at("wall_time"));
    if (j.contains("boot")) r.boot = boot_from(j.at("boot"));
    return r;
}

json parse_document(std::istream& in, const std::string& name) {
    // nlohmann's parser is iterative, but copies and comparisons recurse per
    // level: a hostile file must not reach them with unbounded depth.
    auto bounded = [](int depth, json::parse_event_t, json&) {
        if (depth > kMaxDepth) throw InputError(fmt::format("nested deeper than {} levels", kMaxDepth));
        return true;
    };
    try {
        return json::parse(in, bounded);
    } catch (const json::parse_error& e) {
        std::string why = e.what();
        auto colon = why.find("parse error");
        throw InputError(name + " is not valid JSON: " + (colon == std::string::npos ? why : why.substr(colon)));
    } catch (const InputError& e) {
        throw InputError(name + ": " + e.what());
    }
}

} // namespace eb::result
