#include "cli/module_ab.h"

#include <fmt/format.h>

#include "cli/app.h"
#include "cli/emit.h"
#include "cli/errors.h"
#include "cli/history.h"
#include "cli/kernel_ab.h"
#include "cli/parse.h"
#include "cli/run_options.h"
#include "lab/module_ab.h"
#include "lab/run.h"
#include "report/compare.h"
#include "report/sanitize.h"

namespace eb::cli {

void add_module_ab_options(CLI::App& cmd, ModuleAbArgs& m) {
    cmd.add_option("--module", m.module, "module parameter A/B: reload kvm, kvm_amd or kvm_intel with --a's and "
                                         "--b's 'PARAM=V ...' in turn (A B B A ...), one run a load; the load is "
                                         "the unit (parameters writable at run time are written: the run is)");
    cmd.add_option("--loads", m.loads, "--module: loads (runs) a side, 3 or more for a verdict (default 3)");
}

namespace {

void reject_other_options(const CompareArgs& c) {
    if (!c.a || !c.b) throw UsageError("--module needs --a 'PARAM=V ...' and --b 'PARAM=V ...': each side's parameters");
    if (!c.configs.empty() || !c.vs.empty() || !c.against.empty() || !c.common.kernel.empty() || c.common.emulated)
        throw UsageError("--module reloads a module on this host; --config, --vs, --against, --kernel and --emulated "
                         "do not apply (inside a guest: exitbench boot --kernel K -- compare --module ...)");
    reject_schedule(c, "--module", "load");
}

std::vector<std::string> header(const lab::ModuleAbOutcome& done, const std::string& module, unsigned n) {
    return {done.reload ? fmt::format("module A/B of {}: {} loads a side in A B B A order, one run each; the load is "
                                      "the unit", module, n)
                        : fmt::format("module A/B of {}: the parameters are writable at run time, so they were "
                                      "written; {} runs a side in A B B A order in one load; the run is the unit",
                                      module, n),
            fmt::format("{} before: {}", module, lab::param_words(done.before)),
            fmt::format("{} after:  {}", module, lab::param_words(done.after)), done.restored.back()};
}

} // namespace

int cmd_compare_module(const CompareArgs& c, const ModuleAbArgs& m, const std::atomic<bool>& interrupt) {
    if (m.module != "kvm" && m.module != "kvm_amd" && m.module != "kvm_intel")
        throw UsageError(fmt::format("--module takes kvm, kvm_amd or kvm_intel, not '{}'", m.module));
    reject_other_options(c);
    unsigned n = unsigned(parse_count("--loads", m.loads.empty() ? "3" : m.loads, 1, 1000));
    double alpha = parse_number("--alpha", c.alpha, 1e-6, 0.5);
    std::optional<double> fail_pct;
    if (!c.fail_if_slower.empty()) fail_pct = parse_number("--fail-if-slower", c.fail_if_slower, 0, 1e6);
    auto out = plan_outputs(c.common.format, c.common.exports, c.common.json, report::Subject::Compare);
    if (!c.common.no_save) require_saveable(c.db);
    lab::ModuleAbSpec spec{m.module, {*c.a, *c.b}, n, guest_run_args(c.common.tests, "", run_words(c.common, kRun))};
    std::vector<std::string> labels{"A: " + m.module + " " + *c.a, "B: " + m.module + " " + *c.b};
    auto host = lab::system_modules();
    lab::ModuleAbObserver obs{[](const std::string& l) { note(report::printable(l)); }};
    auto done = lab::run_module_ab(spec, *host, lab::child_runner("/proc/self/exe", interrupt), labels, alpha,
                                   interrupt, obs);
    if (!done.restore_ok) fmt::print(stderr, "exitbench: {}\n", report::printable(done.restored.back()));
    if (!done.failure.empty()) fmt::print(stderr, "exitbench: stopped early: {}\n", report::printable(done.failure));
    std::string base = c.common.label.empty() ? "module-ab-" + lab::utc_now("%Y%m%dT%H%M%SZ") : c.common.label;
    std::vector<ToSave> saves;
    for (int s = 0; s < 2; ++s)
        for (const auto& r : done.sides[s])
            if (!c.common.no_save) saves.push_back({&r, base + (s ? "/B" : "/A"), c.common.note});
    int rc;
    if (!done.cmp) {  // what finished is kept all the same
        fmt::print(stderr, "exitbench: {}\n", report::printable(done.why_not));
        bool saved = true;
        for (const auto& s : saves) saved = save_run(c.db, *s.run, s.label, s.note) && saved;
        rc = done.interrupted ? kInterrupted : saved ? kNotTestable : kNotSaved;
    } else {
        report::Comparison doc;
        doc.command = c.common.argv;
        doc.report = std::move(*done.cmp);
        doc.header = header(done, m.module, n);
        rc = conclude_boots(doc, out, c.db, saves, fail_pct, done.interrupted, c.common.no_save ? "" : base);
    }
    if (!done.restore_ok && rc != kInterrupted) return kHost;  // the host is not as it was: louder than a verdict
    return done.failure.empty() || rc == kInterrupted ? rc : kHost;
}

} // namespace eb::cli
