#include "cli/kernel_kexec.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

#include "cli/app.h"
#include "cli/emit.h"
#include "cli/errors.h"
#include "cli/history.h"
#include "cli/kernel_ab.h"
#include "cli/parse.h"
#include "cli/run_options.h"
#include "lab/kexec_run.h"
#include "report/sanitize.h"
#include "sys/error.h"

namespace fs = std::filesystem;

namespace eb::cli {

void add_kexec_options(CLI::App& cmd, KernelAbArgs& k) {
    cmd.add_option("--backend", k.backend, "host-kernel A/B: qemu boots each kernel in QEMU; kexec boots the host "
                                           "itself into each in turn (bare metal, root; a systemd unit resumes the "
                                           "plan after each boot)")
        ->capture_default_str();
    cmd.add_flag("--status", k.status, "--backend kexec: where the plan next to the history stands");
    cmd.add_flag("--abort", k.abort, "--backend kexec: end the plan, remove its unit and state (the finished boots "
                                     "stay in the history)");
    cmd.add_flag("--resume", k.resume, "the kexec plan's entry point after each boot (its unit runs it)")
        ->group("");  // the unit's, not the user's
    cmd.add_option("--unit-dir", k.unit_dir, "--backend kexec: where the plan's systemd unit goes")
        ->capture_default_str();
}

namespace {

// `text` to stdout, line by line through report::printable.
void say(const std::string& text) {
    std::string out;
    size_t at = 0;
    while (at < text.size()) {
        size_t nl = text.find('\n', at);
        if (nl == std::string::npos) nl = text.size();
        out += report::printable(std::string_view(text).substr(at, nl - at)) + "\n";
        at = nl + 1;
    }
    write_stdout(out);
}


void print_status(const lab::KexecPlan& p, const std::string& state) {
    auto s = lab::plan_status(p);
    unsigned n = p.boots_a_side();
    std::string done = fmt::format("A {} of {}, B {} of {} boots finished, {} failed", s.finished[0], n,
                                   s.finished[1], n, s.failed);
    std::string out = fmt::format("kexec plan {} ({})\n", p.id, state);
    if (s.done) {
        out += fmt::format("  finished: {}; the verdict again: exitbench compare label:{}/A label:{}/B\n", done,
                           p.label, p.label);
    } else {
        out += fmt::format("  boot {} of {}{}: {}\n", s.slot, s.total, s.retry ? " (retry)" : "", done);
        out += fmt::format("  next: {} ({} {}) command line: {}\n", p.sides[s.next_side].name, s.next_kernel,
                           p.sides[s.next_side].initrd.empty() ? "no initrd" : p.sides[s.next_side].initrd,
                           s.next_cmdline);
        out += p.launched_from == lab::this_boot_id() ? "  this boot kexec'd into it: waiting for the kexec\n" : "";
    }
    for (const auto& l : p.short_sides) out += "  " + l + "\n";
    out += fmt::format("  unit: {}/{} ({})\n", p.unit_dir, lab::kUnitName,
                       lab::unit_installed(p.unit_dir) ? "installed" : "not installed");
    say(out);
}

int abort_plan(const lab::KexecPlan& p, const std::string& state) {
    bool unit = lab::abort_kexec_plan(p, state);
    auto s = lab::plan_status(p);
    say(fmt::format(
        "kexec plan {} {}: {} and its state removed; the {} finished boot(s) stay in the history as label:{}/A "
        "and label:{}/B\n", p.id, s.done ? "cleared" : "aborted", unit ? "its unit" : "no unit was left;",
        s.finished[0] + s.finished[1], p.label, p.label));
    return kOk;
}

void kexec_or_say(lab::KexecPlan& p, const std::string& state) {
    auto s = lab::plan_status(p);
    fmt::print(stderr, "exitbench: kexec into boot {} of {}{} ({})\n", s.slot, s.total, s.retry ? " (retry)" : "",
               report::printable(p.sides[s.next_side].name));
    try {
        lab::kexec_next(p, state);
    } catch (const HostError& e) {
        throw HostError(std::string(e.what()) + "; the plan is kept: compare --status, --resume tries again, "
                                                "--abort ends it");
    }
}

// The plan's end: the same verdict as the QEMU backend's.
int finish_plan(lab::KexecPlan& p, const std::string& state) {
    auto f = lab::finish_kexec_plan(p, state);
    if (!f.compared.cmp) {
        fmt::print(stderr, "exitbench: {}\n", report::printable(f.compared.why_not));
        for (const auto& line : p.short_sides) fmt::print(stderr, "exitbench: {}\n", report::printable(line));
        return kNotTestable;
    }
    report::Comparison doc;
    doc.report = std::move(*f.compared.cmp);
    doc.header = f.header;
    auto out = plan_outputs("table", {}, p.json, report::Subject::Compare);
    int rc = conclude_boots(doc, out, p.db, {}, p.fail_pct, false, "");
    if (f.saved) fmt::print(stderr, "exitbench: the boots are saved as label:{}/A and label:{}/B\n", p.label, p.label);
    else fmt::print(stderr, "exitbench: not every boot could be saved to the history (each kept in a file, named above)\n");
    return f.saved || rc == kTestFailed || rc == kHost ? rc : kNotSaved;  // compare_exit's order
}

// After a boot: this boot measured if it is the plan's next, else named as a
// failed one; then the next kexec, or the verdict.
int resume_plan(lab::KexecPlan p, const std::string& state) {
    if (p.done) {
        lab::remove_unit(p.unit_dir);
        fmt::print(stderr, "exitbench: kexec plan {} is finished; nothing to resume\n", p.id);
        return kOk;
    }
    if (auto r = lab::resume_kexec_plan(p, state)) {
        const auto* b = &r->boot;
        if (r->run_id) note(report::printable(fmt::format("saved as run {} in {}", *r->run_id, p.db)));
        fmt::print(stderr, "exitbench: kexec plan {}: boot {} of {}{} ({}), boot id {}: {}{}\n", p.id, b->slot,
                   p.order.size(), b->retry ? " (retry)" : "", report::printable(p.sides[b->side].name), b->boot_id,
                   b->failure.empty() ? "finished" : report::printable(b->failure),
                   b->failure.empty() || b->retry ? "" : "; retrying once");
    }
    if (p.finished()) return finish_plan(p, state);
    kexec_or_say(p, state);
    return kOk;
}

lab::KexecSpec kexec_spec(const CompareArgs& c, const KernelAbArgs& k, const std::string& db) {
    reject_other_modes(c);
    MachineArgs defaults;
    if (k.machine.accel != defaults.accel || k.machine.cpus != defaults.cpus || k.machine.memory != defaults.memory ||
        k.machine.timeout != defaults.timeout || !k.machine.modules.empty())
        throw UsageError("--backend kexec boots the host itself: --accel, --cpus, --memory, --timeout and --modules "
                         "are QEMU's");
    if (c.common.no_save) throw UsageError("--backend kexec saves each boot as it finishes: --no-save does not apply");
    bool exports = std::any_of(c.common.exports.begin(), c.common.exports.end(), [](const auto& e) {
        return !e.second.empty() && e.first != "json";
    });  // the map holds every format, most without a file
    if (c.common.format != "table" || exports)
        throw UsageError("--backend kexec gives its verdict at the plan's end: only --json FILE is kept for it");
    if (k.kernel_a.empty() || k.kernel_b.empty()) throw UsageError("a host-kernel A/B needs --kernel-a and --kernel-b");
    if (k.boots.empty()) throw UsageError("--kernel-a/--kernel-b need --boots N (boots a side; 3 or more for a verdict)");
    if (k.kernel_a == k.kernel_b && k.append_a == k.append_b && k.modprobe_a == k.modprobe_b)
        throw UsageError("sides A and B boot the same kernel, command line and parameters: nothing to compare");
    lab::KexecSpec s;
    s.kernel[0] = k.kernel_a, s.kernel[1] = k.kernel_b, s.append[0] = k.append_a, s.append[1] = k.append_b;
    s.modprobe[0] = k.modprobe_a, s.modprobe[1] = k.modprobe_b;
    s.initrd = k.machine.initrd;
    s.boots = unsigned(parse_count("--boots", k.boots, 1, 1000));
    s.alpha = parse_number("--alpha", c.alpha, 1e-6, 0.5);
    if (!c.fail_if_slower.empty()) s.fail_pct = parse_number("--fail-if-slower", c.fail_if_slower, 0, 1e6);
    s.run_args = guest_run_args(c.common.tests, k.guest_run, run_words(c.common, kRun));
    s.label = c.common.label, s.note = c.common.note, s.db = db, s.json = c.common.json;
    if (auto j = c.common.exports.find("json"); s.json.empty() && j != c.common.exports.end()) s.json = j->second;
    s.unit_dir = fs::absolute(k.unit_dir).string();
    if (!s.json.empty()) s.json = fs::absolute(s.json).string();  // the last boot's resume has another cwd
    return s;
}

int start_plan(const CompareArgs& c, const KernelAbArgs& k, const std::string& db, const std::string& state) {
    auto p = lab::start_kexec_plan(kexec_spec(c, k, db), state, "A: " + lab::describe(k.kernel_a, k.append_a, k.modprobe_a),
                                   "B: " + lab::describe(k.kernel_b, k.append_b, k.modprobe_b));
    fmt::print(stderr, "exitbench: kexec plan {}: {} boots, A B B A ..., one run each; state {}, unit {}/{}\n", p.id,
               p.order.size(), state, p.unit_dir, lab::kUnitName);
    std::error_code ec;
    if (!fs::is_directory("/run/systemd/system", ec))
        fmt::print(stderr, "exitbench: systemd is not running here: this system's init must run '{}' at each boot\n",
                   fmt::join(lab::resume_command(p), " "));
    kexec_or_say(p, state);
    return kOk;
}

} // namespace

int cmd_compare_kexec(const CompareArgs& c, const KernelAbArgs& k) {
    if (int(k.status) + int(k.abort) + int(k.resume) > 1)
        throw UsageError("--status, --abort and --resume are one at a time");
    std::string db = fs::absolute(db_path(c.db)).string();
    std::string state = lab::plan_state_path(db);
    if (!k.status && !k.abort && !k.resume) return start_plan(c, k, db, state);
    auto p = lab::load_plan(state);
    if (!p) {
        if (k.abort) throw UsageError(fmt::format("no kexec plan next to {} to abort", db));
        say(fmt::format("no kexec plan next to {}\n", db));
        return kOk;
    }
    if (k.status) print_status(*p, state);
    if (k.abort) return abort_plan(*p, state);
    if (k.resume) return resume_plan(*p, state);
    return kOk;
}

} // namespace eb::cli
