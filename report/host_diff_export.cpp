#include "report/host_diff_export.h"

#include <cmath>
#include <fmt/format.h>

namespace eb::report {

namespace {

nlohmann::json number_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

const char* side_name(const profile::OneSided& o) { return o.in_b ? "B only" : "A only"; }

std::string unit_name(const profile::HostDiff& d) { return d.paired ? "round" : "run"; }

} // namespace

nlohmann::json host_diff_json(const profile::HostDiff& d) {
    nlohmann::json functions = nlohmann::json::array(), one_sided = nlohmann::json::array();
    for (const auto& f : d.functions) {
        bool tested = f.move != profile::Move::NotTestable;
        functions.push_back({{"test", f.test},
                             {"function", f.function},
                             {"a_ns", f.a_ns},
                             {"b_ns", f.b_ns},
                             {"a_self_ns", f.a_self_ns},
                             {"b_self_ns", f.b_self_ns},
                             {"change_ns", f.t.estimate},
                             {"ci_ns", tested ? nlohmann::json{f.t.ci.lo, f.t.ci.hi} : nlohmann::json(nullptr)},
                             {"p_holm", tested ? number_or_null(f.p_holm) : nlohmann::json(nullptr)},
                             {"verdict", profile::move_name(f.move)},
                             {"why", f.why}});
    }
    for (const auto& o : d.one_sided)
        one_sided.push_back({{"test", o.test}, {"function", o.function}, {"side", o.in_b ? "b" : "a"},
                             {"ns", o.ns}, {"samples", o.samples}});
    return {{"schema", "exitbench-host-diff"}, {"schema_version", kHostDiffSchemaVersion},
            {"label_a", d.label_a},            {"label_b", d.label_b},
            {"unit", unit_name(d)},            {"units", d.rounds},
            {"alpha", d.alpha},                {"family", d.family},
            {"functions", functions},          {"one_sided", one_sided},
            {"notes", d.notes}};
}

Grid host_diff_grid(const profile::HostDiff& d) {
    Grid g{{"test", "function", "a_ns", "b_ns", "change_ns", "ci_lo_ns", "ci_hi_ns", "p_holm", "verdict"},
           {false, false, true, true, true, true, true, true, false},
           {},
           {"test", "function", d.label_a + " ns/iter", d.label_b + " ns/iter", "B - A ns", "CI low", "CI high",
            "p (Holm)", "verdict"}};
    auto num = [](double x) { return fmt::format("{:.3f}", x); };
    for (const auto& f : d.functions) {
        bool tested = f.move != profile::Move::NotTestable;
        g.rows.push_back({f.test, f.function, num(f.a_ns), num(f.b_ns), num(f.t.estimate),
                          tested ? num(f.t.ci.lo) : "", tested ? num(f.t.ci.hi) : "",
                          tested ? fmt::format("{:.4g}", f.p_holm) : "",
                          tested ? profile::move_name(f.move) : f.why});
    }
    for (const auto& o : d.one_sided)
        g.rows.push_back({o.test, o.function, o.in_b ? "" : num(o.ns), o.in_b ? num(o.ns) : "", "", "", "", "",
                          side_name(o)});
    return g;
}

} // namespace eb::report
