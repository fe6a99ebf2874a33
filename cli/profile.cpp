#include "cli/profile.h"
#include "cli/command.h"

#include <cerrno>
#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <fstream>

#include "cli/app.h"
#include "cli/errors.h"
#include "cli/emit.h"
#include "cli/export.h"
#include "cli/parse.h"
#include "cli/run.h"
#include "lab/host_profile_compare.h"
#include "lab/profile_exec.h"
#include "lab/profile_files.h"
#include "report/profile_text.h"
#include "report/sanitize.h"

namespace eb::cli {

ProfileCommands add_profile_commands(CLI::App& app, ProfileArgs& a) {
    ProfileCommands c;
    c.profile = app.add_subcommand("profile", "host-side exit profiler: the perf kvm stat job, with distributions");
    c.profile->require_subcommand(1);
    c.record = c.profile->add_subcommand("record", "record kvm tracepoints of KVM processes into a trace file");
    auto* pid = c.record->add_option("-p,--pid", a.pids, "process to record (repeatable); its threads are filtered in the kernel");
    c.record->add_flag("-a,--all", a.all, "record every process")->excludes(pid);
    c.record->add_option("command", a.command, "after --: a command to start and record until it exits, with "
                                                "every process it forks")->excludes(pid);
    c.record->add_option("--duration", a.duration, "stop after this long (default: Ctrl-C)");
    c.record->add_option("-o,--output", a.out, "trace file (default exitbench.trace)");
    c.record->add_option("--buffer-kb", a.buffer_kb, "ring buffer per CPU in KiB (default 16384)");
    c.report = c.profile->add_subcommand("report", "analyze a trace: perf kvm stat's table, percentiles, per vCPU");
    c.report->add_option("-i,--input", a.input, "trace file, perf.data (read directly) or perf kvm stat report "
                                                "text (default exitbench.trace)");
    c.report->add_option("--event", a.event, "vmexit (default), mmio, ioport or msr");
    c.report->add_option("--vcpu", a.vcpu, "only this vCPU");
    c.report->add_option("-k,--key,--sort", a.sort,
                        "ev_name, sample (default), time (total, as perf 6.3+; perf 6.1 ordered by the "
                        "average: use mean_t for that), max_t, min_t, mean_t");
    c.report->add_option("--json", a.json, "write the analysis as JSON to FILE (the old name of --export-json)");
    c.report->add_flag("--perf", a.perf_only, "print perf kvm stat's table only");
    add_format_option(*c.report, a.format, report::Subject::Profile);
    add_export_options(*c.report, a.exports, report::Subject::Profile, &a.format);
    c.compare = c.profile->add_subcommand("compare", "traces: per reason, change in count and in mean, p50 and p99 "
                                                     "latency (one trace a side is one VM a side: descriptive, not "
                                                     "testable; several a side with --vs: the trace as the unit); "
                                                     "saved runs of run --host-profile (run:N, label:NAME, run JSON "
                                                     "files): per function, the change in ns per iteration, the run "
                                                     "as the unit, and every function sampled on one side only");
    c.compare->add_option("traces", a.files, "OLD NEW: trace files, perf.data files or perf kvm stat report "
                                             "texts, or saved runs; with --vs, the old side's")->expected(1, 1000)->required();
    c.compare->add_option("--vs", a.vs, "the new side's: profile compare OLD1 OLD2 --vs NEW1 NEW2");
    c.compare->add_option("--event", a.event, "traces: vmexit (default), mmio, ioport or msr");
    c.compare->add_option("--db", a.db, "saved runs: the history database run:N and label:NAME refer to");
    c.compare->add_option("--alpha", a.alpha, "saved runs: significance level, Holm over the functions tested "
                                              "(default 0.05)");
    // The saved runs' formats hold the traces' (table, json) and more.
    add_format_option(*c.compare, a.format, report::Subject::HostProfileCompare);
    add_export_options(*c.compare, a.exports, report::Subject::HostProfileCompare, &a.format);
    c.live = c.profile->add_subcommand("live", "a refreshing view: counts, rates and latency per reason");
    auto* live_pid = c.live->add_option("-p,--pid", a.pids, "process to watch (repeatable)");
    c.live->add_flag("-a,--all", a.all, "every process")->excludes(live_pid);
    c.live->add_option("-d,--delay", a.interval, "refresh interval (default 1s); counters reset each time");
    c.live->add_flag("-1,--once", a.once, "one interval, then exit (batch mode)");
    c.live->add_flag("--csv", a.csv, "one CSV line per event and interval");
    c.live->add_option("--than", a.than, "print each exit slower than this many microseconds instead");
    c.live->add_option("--event", a.event, "vmexit (default), mmio, ioport or msr");
    c.cleanup = c.profile->add_subcommand("cleanup", "remove the ftrace instances of exitbench processes that "
                                                     "no longer run (each recorder sweeps them too)");
    c.import = c.profile->add_subcommand("import", "convert a 'perf kvm stat record' perf.data into a trace file, "
                                                   "read directly (perf need not be installed)");
    c.import->add_option("perf-data", a.perf_data, "the perf.data file")->required();
    c.import->add_option("-o,--output", a.out, "trace file (default exitbench.trace)");
    for (auto* s : {c.record, c.report, c.compare, c.live, c.cleanup, c.import}) s->allow_extras(false);
    return c;
}

namespace {

// KVM's largest vCPU id on x86 (KVM_MAX_VCPU_IDS - 1 with the default 4096).
constexpr uint64_t kMaxVcpuId = 4095;

lab::ProfileOptions options(const ProfileArgs& a) {
    lab::ProfileOptions o;
    o.mode = lab::parse_mode(a.event);
    if (!a.vcpu.empty()) o.vcpu = static_cast<uint32_t>(parse_count("--vcpu", a.vcpu, 0, kMaxVcpuId));
    for (std::string_view k : lab::kSortKeys)
        if (a.sort == k) o.sort = a.sort;
    if (o.sort != a.sort)
        throw UsageError(fmt::format("--key must be one of {}, not '{}'", fmt::join(lab::kSortKeys, ", "), a.sort));
    return o;
}

// `profile import PERF.DATA -o OUT`: its events as a trace file.
int profile_import(const std::string& perf_data, const std::string& out) {
    auto r = lab::import_perf_data(perf_data, out);
    std::string msg = report::printable(fmt::format("converted {} into {}: {} events, exit reasons {}", perf_data,
                                                    out, r.events, r.isa));
    for (const auto& [tp, n] : r.skipped) msg += fmt::format("; left out {} {} events", n, report::printable(tp));
    if (r.lost) msg += fmt::format("; perf lost {} events while recording", r.lost);
    write_stdout(msg + "\n");
    return kOk;
}

} // namespace

int cmd_profile_live(const ProfileArgs& a, const lab::ProfileOptions& opt, const std::atomic<bool>& interrupt);

namespace {

// Largest ring buffer per CPU: 4 GiB, already more than most hosts can pin.
constexpr uint64_t kMaxBufferKb = 1u << 22;
// A PID that cannot exist is a usage error; one that does not (yet) is the
// recorder's "no process".
void check_pids(const std::vector<int>& pids) {
    for (int p : pids) {
        if (p <= 0) throw UsageError(fmt::format("--pid needs a process ID greater than 0, not {}", p));
        if (::kill(p, 0) < 0 && errno == ESRCH) throw UsageError(fmt::format("--pid {}: no such process", p));
    }
}

int cmd_record(const ProfileArgs& a, const std::atomic<bool>& interrupt) {
    if (a.pids.empty() && !a.all && a.command.empty())
        throw UsageError("say which processes: -p PID (repeatable), -a, or -- COMMAND ARGS");
    if (!a.command.empty() && !a.duration.empty())
        throw UsageError("--duration does not apply with a command: recording ends when the command exits");
    check_pids(a.pids);
    lab::RecordOptions o;
    o.pids = a.pids;
    o.all = a.all;
    o.out = a.out;
    if (!a.duration.empty()) o.duration_s = parse_duration("--duration", a.duration);
    o.buffer_kb = static_cast<uint32_t>(parse_count("--buffer-kb", a.buffer_kb, 1, kMaxBufferKb));
    require_writable(a.out);
    lab::stamp_host(o);
    if (!a.command.empty()) {
        auto rec = lab::record_command(a.command, o, interrupt);
        fmt::print("recorded {} events into {} while '{}' ran ({}); lost {}\n", rec.result.events, o.out,
                   a.command[0], rec.status, rec.result.lost);
        if (!rec.result.missing.empty())
            fmt::print("tracepoints this kernel lacks: {}\n", fmt::join(rec.result.missing, ", "));
        return kOk;
    }
    auto r = lab::record_processes(o, interrupt);  // InputError for a bad -p, HostError for tracefs
    fmt::print("recorded {} events into {}; lost {}\n", r.events, a.out, r.lost);
    if (!r.missing.empty()) fmt::print("tracepoints this kernel lacks: {}\n", fmt::join(r.missing, ", "));
    return kOk;
}

int cmd_cleanup() {
    auto s = lab::sweep_stale_instances();
    for (const auto& n : s.removed) fmt::print("removed the ftrace instance {}: its process no longer runs\n", n);
    if (s.removed.empty() && s.failed.empty()) fmt::print("no stale exitbench ftrace instances\n");
    if (s.failed.empty()) return kOk;
    throw HostError(fmt::format("cannot remove the ftrace instance {}", fmt::join(s.failed, "; ")));
}

} // namespace

namespace {

// Saved runs on every side, or traces on every side; a mix is refused.
bool saved_runs(const ProfileArgs& a) {
    size_t saved = 0, all = a.files.size() + a.vs.size();
    for (const auto* side : {&a.files, &a.vs})
        for (const auto& f : *side) saved += lab::names_saved_run(f);
    if (saved && saved != all)
        throw UsageError("profile compare takes traces or saved runs (run:N, label:NAME, run JSON), not both");
    return saved > 0;
}

// profile compare of saved runs' host profiles: the run as the unit.
int compare_host_profiles(const ProfileArgs& a) {
    if (a.event != "vmexit") throw UsageError("--event applies to traces; a host profile has no exit reasons");
    double alpha = parse_number("--alpha", a.alpha, 1e-6, 0.5);
    auto out = plan_outputs(a.format, a.exports, "", report::Subject::HostProfileCompare);
    std::vector<std::string> olds = a.files, news = a.vs;
    if (news.empty()) {
        if (olds.size() != 2)
            throw UsageError("profile compare takes two saved runs, OLD NEW, or several a side: OLD1 OLD2 --vs NEW1 NEW2 "
                             "(a label:NAME is every run under it)");
        news = {olds[1]};
        olds.resize(1);
    }
    auto cmp = lab::compare_saved_host_profiles(olds, news, a.db, alpha);
    return emit(out, cmp).written ? kOk : kHost;
}

} // namespace

int cmd_profile(const ProfileCommands& c, const ProfileArgs& a, const std::atomic<bool>& interrupt) {
    if (*c.record) return cmd_record(a, interrupt);
    if (*c.cleanup) return cmd_cleanup();
    if (*c.import) return profile_import(a.perf_data, a.out);
    if (*c.live) {
        check_pids(a.pids);
        return cmd_profile_live(a, options(a), interrupt);
    }
    if (*c.report) {
        auto opt = options(a);
        if (a.perf_only && a.format != "table") throw UsageError("--perf prints perf's table; it takes no --format");
        auto out = plan_outputs(a.format, a.exports, a.json, report::Subject::Profile);
        auto rep = lab::read_profile(a.input, opt);
        // An imported perf table has nothing beyond perf's own columns to show.
        bool perf_table = a.perf_only || (!rep.imported.empty() && a.format == "table");
        auto perf = perf_table ? std::optional(report::render_perf(rep)) : std::nullopt;
        return emit(out, rep, "", {}, perf).written ? kOk : kHost;
    }
    if (saved_runs(a)) return compare_host_profiles(a);
    if (!a.db.empty() || a.alpha != "0.05")
        throw UsageError("--db and --alpha apply to saved runs' host profiles; traces are compared as they are");
    auto opt = options(a);
    auto out = plan_outputs(a.format, a.exports, "", report::Subject::ProfileCompare);
    report::ProfileComparison cmp{{}, opt.mode};
    if (a.vs.empty()) {
        if (a.files.size() != 2)
            throw UsageError("profile compare takes two traces, OLD NEW, or several a side: OLD1 OLD2 --vs NEW1 NEW2");
        cmp.changes = lab::compare_profiles({a.files[0]}, {a.files[1]}, opt, false);
    } else {
        cmp.changes = lab::compare_profiles(a.files, a.vs, opt, true);
    }
    return emit(out, cmp).written ? kOk : kHost;
}

namespace {

class ProfileCommand : public Command {
public:
    explicit ProfileCommand(CLI::App& root) : Command(nullptr), c_(add_profile_commands(root, args_)) { app_ = c_.profile; }
    int run(const Context& ctx) override { return cmd_profile(c_, args_, ctx.interrupted); }
    bool emulable() const override { return false; }  // it profiles this host's KVM

private:
    ProfileArgs args_;
    ProfileCommands c_;
};

} // namespace

std::unique_ptr<Command> profile_command(CLI::App& root) { return std::make_unique<ProfileCommand>(root); }

} // namespace eb::cli
