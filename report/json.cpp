#include "report/json.h"

#include <stdexcept>

#include "report/exporter.h"
#include "stats/inference.h"
#include "stats/summary.h"

namespace eb::report {

using nlohmann::json;

namespace {

json host_json(const vmm::HostFacts& h) {
    return {{"cpu_model", h.cpu_model},         {"cpu_vendor", h.cpu_vendor},
            {"kernel_release", h.kernel_release}, {"backend", vmm::backend_name(h.backend)},
            {"backend_module", h.backend_module}, {"tsc_mhz", h.tsc_mhz},
            {"tsc_source", h.tsc_source},         {"tsc_calibrated_mhz", h.tsc_calibrated_mhz},
            {"host_cpus", h.host_cpus}};
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
            {"p50_ns", p->p50_ns}, {"p99_ns", p->p99_ns}, {"note", p->note}};
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

json result_json(const suite::TestResult& t, const std::optional<double>& base,
                 const std::optional<double>& overhead, double tsc_mhz) {
    json j = {{"name", t.name},
              {"status", suite::status_name(t.status)},
              {"detail", t.detail},
              {"iterations_per_batch", t.iterations},
              {"vcpus", t.vcpus},
              {"irqs_per_iter", opt(t.irqs_per_iter)},
              {"ipi_latency_cycles", t.ipi_latency_cycles},
              {"samples_cycles_per_iter", t.samples},
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
              {"wall_seconds", t.wall_seconds}};
    if (!t.samples.empty()) {
        double m = stats::median(t.samples);
        auto ci = stats::median_ci(t.samples);
        auto out = stats::outliers(t.samples);
        j["summary"] = {{"median_cycles", m},
                        {"median_ci_95", {ci.lo, ci.hi}},
                        {"median_ci_coverage", stats::median_ci_coverage(t.samples.size())},
                        {"cv", t.samples.size() >= 2 ? json(stats::cv(t.samples)) : json(nullptr)},
                        {"outlier_repeats", out.low.size() + out.high.size()},
                        {"min_cycles", stats::min(t.samples)},
                        {"max_cycles", stats::max(t.samples)},
                        {"median_ns", m / tsc_mhz * 1e3},
                        {"minus_baseline_cycles",
                         base && t.name != "baseline" ? json(m - *base) : json(nullptr)}};
    }
    return j;
}

template <class T>
T field(const json& j, const char* key, const char* where) {
    if (!j.is_object() || !j.contains(key))
        throw std::runtime_error(std::string("missing \"") + key + "\" in " + where);
    try {
        return j.at(key).get<T>();
    } catch (const json::exception&) {
        throw std::runtime_error(std::string("\"") + key + "\" in " + where + " has the wrong type");
    }
}

} // namespace

json to_json(const suite::RunReport& r) {
    auto base = suite::baseline_cycles(r);
    json results = json::array();
    auto overhead = suite::per_exit_overhead(r);
    for (const auto& t : r.results) results.push_back(result_json(t, base, overhead, r.host.tsc_mhz));
    const auto& s = r.settings;
    return {{"schema", "exitbench-run"},
            {"schema_version", kSchemaVersion},
            {"tool_version", r.tool_version},
            {"host", host_json(r.host)},
            {"env", env_json(r.env)},
            {"settings",
             {{"iterations", s.iterations ? json(*s.iterations) : json(nullptr)},
              {"repeats", s.repeats},
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
              {"profile", s.profile}}},
            {"interrupted", r.interrupted},
            {"baseline_cycles", opt(base)},
            {"results", results}};
}

suite::RunReport from_json(const json& j) {
    if (!j.is_object() || j.value("schema", "") != "exitbench-run")
        throw std::runtime_error("not an exitbench run result (no \"schema\": \"exitbench-run\")");
    int v = field<int>(j, "schema_version", "the document");
    if (v != kSchemaVersion)
        throw std::runtime_error("schema version " + std::to_string(v) + " is not supported (this " +
                                 "exitbench reads version " + std::to_string(kSchemaVersion) + ")");
    suite::RunReport r;
    r.tool_version = field<std::string>(j, "tool_version", "the document");
    r.interrupted = field<bool>(j, "interrupted", "the document");
    const json& h = j.at("host");
    r.host.cpu_model = field<std::string>(h, "cpu_model", "host");
    r.host.cpu_vendor = field<std::string>(h, "cpu_vendor", "host");
    r.host.kernel_release = field<std::string>(h, "kernel_release", "host");
    r.host.backend = vmm::backend_from_name(field<std::string>(h, "backend", "host"));
    r.host.backend_module = field<std::string>(h, "backend_module", "host");
    r.host.tsc_mhz = field<double>(h, "tsc_mhz", "host");
    r.host.tsc_source = field<std::string>(h, "tsc_source", "host");
    r.host.tsc_calibrated_mhz = field<double>(h, "tsc_calibrated_mhz", "host");
    r.host.host_cpus = field<int>(h, "host_cpus", "host");
    const json& s = j.at("settings");
    if (!s.at("iterations").is_null()) r.settings.iterations = field<uint64_t>(s, "iterations", "settings");
    r.settings.repeats = field<uint32_t>(s, "repeats", "settings");
    r.settings.time_goal_s = field<double>(s, "time_goal_s", "settings");
    if (!s.at("cpu").is_null()) r.settings.cpu = field<int>(s, "cpu", "settings");
    r.settings.watchdog_s = field<double>(s, "watchdog_s", "settings");
    r.settings.smp = field<uint32_t>(s, "smp", "settings");
    r.settings.pin = field<std::vector<int>>(s, "pin", "settings");
    r.settings.pin_auto = field<bool>(s, "pin_auto", "settings");
    r.settings.apic = field<std::string>(s, "apic", "settings");
    const json& kn = field<json>(s, "knobs", "settings");
    const json msrs = field<json>(kn, "guest_msrs", "knobs");
    for (const json& m : msrs)
        r.settings.guest_msrs.push_back({field<std::string>(m, "name", "a guest MSR"),
                                         field<uint32_t>(m, "index", "a guest MSR"),
                                         field<uint64_t>(m, "value", "a guest MSR")});
    const json& ef = field<json>(kn, "guest_efer", "knobs");
    for (const char* bit : {"nx", "sce"})
        if (!field<json>(ef, bit, "guest_efer").is_null())
            (std::string(bit) == "nx" ? r.settings.guest_efer.nx : r.settings.guest_efer.sce) =
                field<std::string>(ef, bit, "guest_efer") == "on";
    r.settings.cpuid_edits = field<std::string>(kn, "cpuid", "knobs");
    const json env = field<json>(j, "env", "the document");
    for (const auto& [k, v] : env.items()) r.env.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
    r.settings.baseline = field<bool>(s, "baseline", "settings");
    r.settings.per_exit = field<bool>(s, "per_exit", "settings");
    r.settings.profile = field<bool>(s, "profile", "settings");
    const json results = field<json>(j, "results", "the document");
    for (const json& t : results) {
        suite::TestResult x;
        x.name = field<std::string>(t, "name", "a result");
        auto st = suite::status_from_name(field<std::string>(t, "status", "a result"));
        if (!st) throw std::runtime_error("unknown status in result " + x.name);
        x.status = *st;
        x.detail = field<std::string>(t, "detail", "a result");
        x.iterations = field<uint64_t>(t, "iterations_per_batch", "a result");
        x.vcpus = field<uint32_t>(t, "vcpus", "a result");
        if (!field<json>(t, "irqs_per_iter", "a result").is_null())
            x.irqs_per_iter = field<double>(t, "irqs_per_iter", "a result");
        x.ipi_latency_cycles = field<std::vector<double>>(t, "ipi_latency_cycles", "a result");
        x.samples = field<std::vector<double>>(t, "samples_cycles_per_iter", "a result");
        const json& e = field<json>(t, "exits", "a result");
        x.exits.kind = field<std::string>(e, "kind", "exits");
        x.exits.expected = field<double>(e, "expected_per_iter", "exits");
        x.exits.expected_max = field<double>(e, "expected_max_per_iter", "exits");
        if (!e.at("measured_per_iter").is_null())
            x.exits.measured = field<double>(e, "measured_per_iter", "exits");
        x.exits.source = field<std::string>(e, "source", "exits");
        x.exits.note = field<std::string>(e, "note", "exits");
        x.kvm_stats_per_iter = field<std::map<std::string, double>>(t, "kvm_stats_per_iter", "a result");
        x.host_checks = field<std::vector<std::string>>(t, "host_checks", "a result");
        x.warnings = field<std::vector<std::string>>(t, "warnings", "a result");
        x.wall_seconds = field<double>(t, "wall_seconds", "a result");
        const json& hp = field<json>(t, "host_profile", "a result");
        if (!hp.is_null())
            x.host_profile = suite::HostProfile{field<std::string>(hp, "reason", "host_profile"),
                                                field<uint64_t>(hp, "count", "host_profile"),
                                                field<double>(hp, "per_iter", "host_profile"),
                                                field<double>(hp, "mean_ns", "host_profile"),
                                                field<double>(hp, "p50_ns", "host_profile"),
                                                field<double>(hp, "p99_ns", "host_profile"),
                                                field<std::string>(hp, "note", "host_profile")};
        const json& pe = field<json>(t, "per_exit", "a result");
        if (!pe.is_null()) x.per_exit_cycles = field<std::vector<double>>(pe, "samples_raw", "per_exit");
        const json& g = field<json>(t, "guest_state", "a result");
        if (!field<json>(g, "efer", "guest_state").is_null()) x.guest_state.efer = field<uint64_t>(g, "efer", "guest_state");
        x.guest_state.msrs = field<std::map<std::string, uint64_t>>(g, "msrs", "guest_state");
        x.guest_state.cpuid = field<std::map<std::string, bool>>(g, "cpuid", "guest_state");
        r.results.push_back(std::move(x));
    }
    return r;
}

namespace {
class Json : public Exporter {
public:
    std::string render(const suite::RunReport& r) const override { return to_json(r).dump(2) + "\n"; }
};
} // namespace

std::unique_ptr<Exporter> json_exporter() { return std::make_unique<Json>(); }

} // namespace eb::report
