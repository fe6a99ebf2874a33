#include "cli/kselftest.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "cli/app.h"
#include "cli/emit.h"
#include "cli/errors.h"
#include "report/ci_cases.h"
#include "report/ktap.h"

namespace eb::cli {

std::function<int()> skip_without_kvm(std::function<int()> command) {
    return [command = std::move(command)] {
        try {
            return command();
        } catch (const NoKvm& e) {  // as kselftest's KVM tests do without /dev/kvm
            fmt::print(stderr, "exitbench: {}; skipping\n", e.what());
            write_stdout(report::ktap_skip_all(e.what()));
            return int(kKsftSkip);
        }
    };
}

int kselftest_status(int rc) {
    switch (rc) {
    case kOk: return kKsftPass;
    case kKsftSkip: return kKsftSkip;
    case kInterrupted: return kInterrupted;
    default: return kKsftFail;  // a failed test, bad usage, a host error
    }
}

namespace {
// The baseline is a control that runs with every test: what was asked for
// decides, unless the baseline is all there is.
int skip_if(int rc, const report::CiReport& r) {
    std::vector<report::Outcome> asked, base;
    for (const auto& g : r.groups) {
        if (r.nested) (g.name == "baseline" ? base : asked).push_back(g.outcome());
        else
            for (const auto& c : g.cases) (c.name == "baseline" ? base : asked).push_back(c.outcome);
    }
    const auto& decides = asked.empty() ? base : asked;
    bool all = !decides.empty() && std::all_of(decides.begin(), decides.end(),
                                               [](auto o) { return o == report::Outcome::Skip; });
    return rc == kOk && all ? kKsftSkip : rc;
}
} // namespace

int fail_if_any_failed(int rc, const report::Comparison& c) {
    auto r = report::ci_report(c);
    bool failed = std::any_of(r.groups.begin(), r.groups.end(),
                              [](const auto& g) { return g.outcome() == report::Outcome::Fail; });
    return rc == kOk && failed ? kTestFailed : rc;
}

std::string ktap_error(std::string_view why) {
    std::string out = "KTAP version 1\n1..1\n";
    for (const auto& line : report::ktap_diagnostics(why)) out += line + "\n";
    return out + "not ok 1 exitbench\n";
}

int skip_if_all_skipped(int rc, const lab::RunReport& r) { return skip_if(rc, report::ci_report(r)); }
int skip_if_all_skipped(int rc, const report::Comparison& c) { return skip_if(rc, report::ci_report(c)); }

} // namespace eb::cli
