#include "cli/run.h"
#include "cli/command.h"
#include "cli/emulated.h"

#include <algorithm>
#include <fmt/format.h>
#include <random>
#include <sched.h>
#include <unistd.h>

#include "cli/app.h"
#include "cli/emit.h"
#include "cli/errors.h"
#include "cli/history.h"
#include "cli/kselftest.h"
#include "cli/parse.h"
#include "cli/progress.h"
#include "lab/catalog.h"
#include "report/exporter.h"

namespace eb::cli {

namespace {

void check_cpu(const char* opt, int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &set)))
        throw UsageError(fmt::format("{} {}: this process may not run on host CPU {}", opt, cpu, cpu));
}

} // namespace

void add_run_options(CLI::App& run, RunArgs& ra, unsigned scopes, bool outputs) {
    run.add_option("tests", ra.tests, "test names (see 'list')");
    for (const auto& o : run_options_table()) {
        if (!(o.scopes & scopes)) continue;
        if ((o.scopes & kWhere) && !(scopes & kWhere)) continue;  // only where the command itself acts on it
        std::visit(
            [&](auto field) {
                if constexpr (std::is_same_v<decltype(field), bool RunArgs::*>) run.add_flag(o.flags, ra.*field, o.help);
                else run.add_option(o.flags, ra.*field, o.help);
            },
            o.field);
    }
    if (outputs) {
        run.add_option("--json", ra.json, "write the full result as JSON to FILE (the old name of --export-json)");
        add_format_option(run, ra.format, report::Subject::Run,
                          ". kut prints \"name cycles\" lines as vmexit.flat does, but the figure is the median over "
                          "the repeats (the geometric mean of the session medians with --sessions > 1), where "
                          "vmexit.flat prints its last measurement" + std::string(kKtapFormatHelp));
    }
    run.allow_extras(false);
}

namespace {

// Limits of the numeric options. kMaxIterations is suite/session.cpp's
// largest batch; --per-exit batches are bounded by the guest's sample buffer.
constexpr uint64_t kMaxIterations = 1ull << 36;
constexpr uint64_t kMaxRepeats = 1u << 20;
constexpr double kMaxTimeGoal = 10, kMaxWatchdog = 3600, kMinWatchdog = 1e-3;
// --per-exit keeps every sample (8 bytes each) of every test in memory and in
// the JSON: at most this many per test (128 MiB).
constexpr uint64_t kPerExitMaxSamples = 1u << 24;

// The numeric options, each parsed strictly against its range.
void parse_numbers(const RunArgs& a, lab::RunSettings& s) {
    uint64_t max_n = a.per_exit ? lab::kMaxPerExitIterations : kMaxIterations;
    if (!a.iterations.empty())
        s.iterations = parse_count(a.per_exit ? "--iterations (with --per-exit)" : "--iterations", a.iterations,
                                   1, max_n);
    s.repeats = a.repeats.empty() ? kDefaultRepeats
                                  : static_cast<uint32_t>(parse_count("--repeats", a.repeats, 1, kMaxRepeats));
    if (!a.warmup.empty()) s.warmup = static_cast<uint32_t>(parse_count("--warmup", a.warmup, 0, 1000));
    s.sessions = a.sessions.empty() ? kDefaultSessions
                                    : static_cast<uint32_t>(parse_count("--sessions", a.sessions, 1, 1000));
    s.order_seed = a.seed.empty() ? std::random_device{}() : parse_count("--seed", a.seed, 0, UINT64_MAX);
    if (!a.time_goal.empty()) s.time_goal_s = parse_duration("--time-goal", a.time_goal, kMaxTimeGoal);
    if (!a.watchdog.empty()) s.watchdog_s = parse_duration("--watchdog", a.watchdog, kMaxWatchdog, kMinWatchdog);
    if (!a.smp.empty()) s.smp = static_cast<uint32_t>(parse_count("--smp", a.smp, 1, lab::kMaxVcpus));
    uint64_t batch = s.iterations.value_or(lab::kMaxPerExitIterations);
    if (a.per_exit && uint64_t(s.repeats) * batch > kPerExitMaxSamples)
        throw UsageError(fmt::format("--per-exit keeps every sample: {} repeats of up to {} iterations exceed the "
                                     "cap of {} samples (128 MiB) per test; lower --repeats or set --iterations",
                                     s.repeats, batch, kPerExitMaxSamples));
}

} // namespace

lab::RunPlan plan_run(const RunArgs& a) {
    lab::RunPlan p;
    auto& s = p.settings;
    parse_numbers(a, s);
    if (!a.cpu.empty()) {
        auto cpus = parse_cpu_list("--cpu", a.cpu);
        if (cpus.size() != 1) throw UsageError("--cpu takes one CPU; use --pin for several vCPUs");
        check_cpu("--cpu", cpus[0]);
        s.cpu = cpus[0];
    }
    s.baseline = !a.no_baseline;
    s.trace_verify = !a.no_trace_verify;
    s.retry_hung = a.retry_hung;
    if (a.pin == "auto") {
        s.pin_auto = true;
    } else if (!a.pin.empty()) {
        s.pin = parse_cpu_list("--pin", a.pin);
        for (int c : s.pin) check_cpu("--pin", c);
    }
    // The mode's name is checked here, before /dev/kvm is opened; whether the
    // host offers x2APIC is known only once it is.
    if (std::find(lab::kApicModes.begin(), lab::kApicModes.end(), a.apic) == lab::kApicModes.end())
        throw UsageError(fmt::format("--apic must be one of {}, not '{}'", fmt::join(lab::kApicModes, ", "), a.apic));
    s.apic = a.apic;
    for (const auto& m : a.guest_msrs) s.guest_msrs.push_back(lab::parse_msr_knob(m));
    if (s.guest_msrs.size() > lab::kMaxKnobs)
        throw UsageError(fmt::format("--guest-msr: at most {} MSRs", lab::kMaxKnobs));
    if (!a.guest_efer.empty()) s.guest_efer = lab::parse_efer(a.guest_efer);
    if (!a.cpuid.empty()) {
        p.cpuid_edits = lab::parse_cpuid_edits(a.cpuid);
        s.cpuid_edits = a.cpuid;
    }
    p.tests = lab::select_tests(a.tests, s.baseline);
    p.allow_invd = a.allow_invd;
    s.per_exit = a.per_exit;
    s.profile = a.profile || !a.profile_out.empty();
    if (s.profile && s.sessions > 1) {
        if (!a.sessions.empty())
            throw UsageError("--profile attributes one session's time windows; use it with --sessions 1");
        s.sessions = 1;
    }
    p.profile_out = a.profile_out;
    p.argv = a.argv;
    if (!a.profile_out.empty()) require_writable(a.profile_out);
    if (!a.json.empty()) require_writable(a.json);
    return p;
}

int cmd_run(const std::string& device, const RunArgs& a, const HostProfileArgs& hpa,
            const std::atomic<bool>& interrupt) {
    if (a.no_save && (!a.db.empty() || !a.label.empty() || !a.note.empty()))
        throw UsageError("--no-save does not save, so --db, --label and --note have nothing to apply to");
    auto plan = plan_run(a);
    if (!a.no_save) require_saveable(a.db);
    if (!a.kernel.empty() && !a.emulated) throw UsageError("--kernel IMAGE applies with --emulated");
    if (a.emulated) {
        if (!hpa.hz.empty()) throw UsageError("--host-profile samples this host; --emulated runs in a guest");
        return run_emulated(a, interrupt);
    }
    auto out = plan_outputs(a.format, a.exports, a.json, report::Subject::Run);
    auto host_plan = plan_host_profile(hpa);
    // Before KVM: a host that may not sample says so before anything runs.
    auto profiler = host_plan ? start_host_profiler(*host_plan) : nullptr;
    auto sys = lab::open_kvm(device);
    Progress shown(plan.tests.size(), plan.settings.sessions, isatty(STDERR_FILENO) && !quiet(), plan.settings.retry_hung);
    auto rep = lab::execute(sys, plan, interrupt,
                            {[&](const std::string& test) { shown.starting(test); },
                             [&](const lab::TestResult& r) { shown.done(r); }},
                            profiler.get());
    if (profiler) profiler->attach_to(rep);  // before the exports and the save

    int rc = rep.interrupted ? kInterrupted : kOk;
    if (rc == kOk && lab::has_unexpected_failure(rep)) rc = kTestFailed;
    // An interrupted run is partial: it would mislead a later comparison.
    std::vector<ToSave> saves;
    if (!a.no_save && !rep.interrupted) saves.push_back({&rep, a.label, a.note});
    // The HTML export gets a flame graph per profiled test; the folded stacks
    // and the tables come with the other outputs.
    bool host_written = !profiler || write_html_with_flames(out.files, *profiler, rep), folded_written = true;
    std::string host_tables;
    if (profiler) host_tables = finish_host_profile(*profiler, *host_plan, rep, folded_written);
    host_written = host_written && folded_written;
    bool textfiles = write_run_textfiles(
        out.files, [&] { return report::make_exporter("openmetrics")->render(rep); }, rep.interrupted);
    auto done = emit(out, rep, a.db, saves);
    done.written = done.written && textfiles;
    // The tables follow a table on stdout; beside any other format they go to stderr.
    if (a.format == "table") write_stdout(host_tables);
    else fmt::print(stderr, "{}", host_tables);
    if (!done.written || !host_written) rc = kHost;  // stdout still showed the results
    // A lost save outranks a failed test: the result exists only in the file it names.
    if (!done.saved) rc = kNotSaved;
    return ktap_stdout(a.format) ? skip_if_all_skipped(rc, rep) : rc;
}

namespace {

class RunCommand : public Command {
public:
    explicit RunCommand(CLI::App& root)
        : Command(root.add_subcommand("run", "run tests (all of the default suite when none are named)")) {
        add_run_options(*app_, args_, kRun | kWhere);
        add_export_options(*app_, args_.exports, report::Subject::Run, &args_.format);
        app_->add_option("--seed", args_.seed, "seed of the shuffled test order with --sessions (default: random, saved)");
        app_->add_option("--db", args_.db, "save to this history database (default $XDG_DATA_HOME/exitbench/history.db)");
        app_->add_flag("--no-save", args_.no_save, "do not save the run to the history");
        app_->add_option("--label", args_.label, "file the saved run under this label, e.g. before-v2");
        app_->add_option("--note", args_.note, "a note saved with the run");
        add_host_profile_options(*app_, host_profile_);
    }
    int run(const Context& ctx) override {
        args_.argv = ctx.argv;
        return cmd_run(ctx.device, args_, host_profile_, ctx.interrupted);
    }
    std::string stdout_format() const override { return args_.format; }

private:
    RunArgs args_;
    HostProfileArgs host_profile_;
};

} // namespace

std::unique_ptr<Command> run_command(CLI::App& root) { return std::make_unique<RunCommand>(root); }

} // namespace eb::cli
