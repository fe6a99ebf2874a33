#include "report/host_diff_text.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/sanitize.h"

namespace eb::report {

namespace {

constexpr size_t kDiffNameWidth = 48;

std::string diff_row(const profile::FunctionMove& f) {
    std::string ci = f.move == profile::Move::NotTestable
                         ? "-"
                         : fmt::format("[{:+.1f}, {:+.1f}]", f.t.ci.lo, f.t.ci.hi);
    std::string p = f.move == profile::Move::NotTestable ? "-" : fmt::format("{:.3g}", f.p_holm);
    return fmt::format("  {:<{}} {:>10.1f} {:>10.1f} {:>+10.1f} {:>22} {:>9} {}\n", printable_fit(f.function, kDiffNameWidth),
                       kDiffNameWidth, f.a_ns, f.b_ns, f.t.estimate, ci, p, profile::move_name(f.move));
}

std::string diff_test_rows(const profile::HostDiff& d, const std::string& test) {
    std::string out;
    for (const auto* f : d.moved())
        if (f->test == test) out += diff_row(*f);
    return out;
}

// Functions sampled on one side only, whatever their share.
std::string one_sided_rows(const profile::HostDiff& d) {
    if (d.one_sided.empty()) return "";
    std::string out = "  sampled on one side only (shown whatever their share; ns per iteration with children):\n";
    std::string test;
    for (const auto& o : d.one_sided) {
        if (o.test != test) out += fmt::format("  {}\n", printable(test = o.test));
        out += fmt::format("  {:<{}} {:>10.1f} ns  {:>6} sample(s)  {} only\n", printable_fit(o.function, kDiffNameWidth),
                           kDiffNameWidth, o.ns, o.samples, printable(o.in_b ? d.label_b : d.label_a));
    }
    return out;
}

} // namespace

std::string render_host_diff(const profile::HostDiff& d) {
    std::string how = d.paired ? fmt::format("B - A paired by round ({} round(s))", d.rounds)
                               : fmt::format("B - A across saved runs, the run as the unit (Welch; {} run(s) a side "
                                             "at least)", d.rounds);
    std::string out = fmt::format(
        "\nhost profile, {} vs {}: per function, its ns per iteration with children, {}; a verdict needs "
        "Holm-adjusted p < {:g} over the {} function(s) tested\n",
        printable(d.label_b), printable(d.label_a), how, d.alpha, d.family);
    auto moved = d.moved();
    if (moved.empty()) {
        out += d.family ? fmt::format("  nothing measurably moved: none of the {} function(s) tested changed "
                                      "beyond the {}-to-{} variation\n", d.family, d.paired ? "round" : "run",
                                      d.paired ? "round" : "run")
                        : d.paired ? "  nothing could be tested (two or more rounds with samples on both sides are needed)\n"
                                   : "  not testable: one run a side cannot show run-to-run variation (save 3 or "
                                     "more runs a side with run --host-profile --label, then compare the labels)\n";
    } else {
        std::vector<std::string> tests;
        for (const auto* f : moved)
            if (std::find(tests.begin(), tests.end(), f->test) == tests.end()) tests.push_back(f->test);
        for (const auto& test : tests) {
            out += fmt::format("  {}\n", printable(test));
            out += fmt::format("  {:<{}} {:>10} {:>10} {:>10} {:>22} {:>9} {}\n", "function", kDiffNameWidth,
                               fmt::format("{} ns", printable(d.label_a)), fmt::format("{} ns", printable(d.label_b)),
                               "B-A ns", fmt::format("{:g}% CI", (1 - d.alpha) * 100), "p (Holm)", "verdict");
            out += diff_test_rows(d, test);
        }
        out += fmt::format("  {} of {} function(s) tested moved; the CI is each function's own, the verdict the "
                           "family's\n", moved.size(), d.family);
    }
    out += one_sided_rows(d);
    for (const auto& n : d.notes) out += "note: " + printable(n) + "\n";
    return out;
}

} // namespace eb::report
