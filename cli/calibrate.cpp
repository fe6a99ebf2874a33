#include "cli/calibrate.h"
#include "cli/command.h"

#include <cmath>
#include <fmt/format.h>

#include "cli/app.h"
#include "cli/emit.h"
#include "cli/errors.h"
#include "cli/history.h"
#include "cli/parse.h"
#include "lab/calibrate.h"

namespace eb::cli {

CLI::App* add_calibrate_command(CLI::App& app, CalibrateArgs& a) {
    auto* cmd = app.add_subcommand(
        "calibrate", "measure the variance each level adds (repeat, session, run; boots from the history) in K "
                     "separate runs, store it, and print the least-cost counts per level (Kalibera-Jones); compare "
                     "of saved runs then prints the runs (or rounds) its tests need");
    add_run_options(*cmd, a.common, kCalibrate, false);
    cmd->get_option("tests")->description("tests to calibrate (default: the default suite)");
    cmd->get_option("--sessions")->description("sessions (fresh VMs) per calibration run (default 3, as run)");
    cmd->get_option("--repeats")->description("measured batches per session (default 4, as run)");
    cmd->add_option("--runs", a.runs, "calibration runs, each a separate exitbench process (default 5; 2 or more)");
    cmd->add_option("--target", a.target, "the detectable difference, in %, the recommended counts reach (default 1)");
    cmd->add_option("--alpha", a.alpha, "significance level of the tests the counts are planned for (default 0.05)");
    cmd->add_option("--db", a.db, "store the calibration in this history database (default "
                                  "$XDG_DATA_HOME/exitbench/history.db; compare reads it from there)");
    return cmd;
}

namespace {

// The run options a calibration run is given, as words for `run`: every row
// of the table calibrate takes, but --sessions and --repeats, which
// lab::calibrate passes itself.
std::vector<std::string> child_words(const std::string& device, const RunArgs& c) {
    RunArgs rest = c;
    rest.sessions.clear();
    rest.repeats.clear();
    std::vector<std::string> w{"--device", device, "run"};
    w.insert(w.end(), c.tests.begin(), c.tests.end());
    auto opts = run_words(rest, kCalibrate);
    w.insert(w.end(), opts.begin(), opts.end());
    return w;
}

std::string sd(const lab::Component& c) {
    if (c.df == 0 && c.var == 0) return "0 (within the noise below)";
    return fmt::format("{:.3f}%", std::sqrt(c.var) * 100);
}

std::string boots_line(const lab::BootLevel& b, const std::string& redo) {
    if (b.boots >= 2)
        return fmt::format("  boots: {} on record ({} runs of this host, kernel and settings): between boots {:.3f}%, "
                           "runs within a boot {:.3f}%\n", b.boots, b.runs, b.boot_sd * 100, b.run_sd * 100);
    return fmt::format("  boots: {} on record (this one): the between-boot spread needs a second; reboot and run "
                       "`{}` once more (or `exitbench run` of these tests with the same settings)\n", b.boots, redo);
}

std::string render(const lab::CalibrateOutcome& o, const RunArgs& a, const std::string& alpha, const std::string& db,
                   double target) {
    const auto& c = o.calibration;
    // The user's own command line, to repeat after a reboot.
    std::vector<std::string> words(a.argv.begin() + (a.argv.empty() ? 0 : 1), a.argv.end());
    std::string redo = fmt::format("exitbench {}", fmt::join(words, " "));
    std::string out = fmt::format(
        "calibration {} of {} (kernel {}, {}), {} runs x {} sessions x {} repeats, each run a separate process; "
        "{}\nsettings: {}\nSDs are of logs (relative spreads); each level's is what it adds to the one "
        "below, with its degrees of freedom\n", c.id, c.identity.hostname, c.identity.kernel_release,
        c.identity.backend, c.runs, c.sessions, c.repeats,
        o.not_saved.empty() ? "stored in " + db : "NOT stored (see stderr)", c.identity.settings);
    for (const auto& p : o.tests) {
        const auto& l = p.cal.levels;
        out += fmt::format("\n{}\n  {:<8} {:>28} {:>7} {:>11}\n", p.cal.test, "level", "SD", "df", "cost of one");
        out += fmt::format("  {:<8} {:>28} {:>7.1f} {:>9.4f} s\n", "repeat", sd(l.repeat), l.repeat.df, p.cal.costs.repeat);
        out += fmt::format("  {:<8} {:>28} {:>7.1f} {:>9.4f} s (a fresh VM, its warm-up)\n", "session", sd(l.session),
                           l.session.df, p.cal.costs.session);
        out += fmt::format("  {:<8} {:>28} {:>7.1f} {:>9.4f} s (process, KVM, image)\n", "run", sd(l.run), l.run.df,
                           p.cal.costs.run);
        out += fmt::format("  a run's mean spreads {:.3f}% on {:g} df ({} runs), sessions about their run {:.3f}% "
                           "on {:g} df\n", std::sqrt(l.run_mean.var) * 100, l.run_mean.df, l.runs,
                           std::sqrt(l.session_median.var) * 100, l.session_median.df);
        const auto& al = p.allocation;
        out += al.reachable
                   ? fmt::format("  least cost for a detectable {:g}%: {} runs x {} sessions x {} repeats a side "
                                 "(detects {:.2f}%, {:.1f} s a side)\n", target * 100, al.runs, al.sessions,
                                 al.repeats, al.detectable * 100, al.cost_s)
                   : fmt::format("  a detectable {:g}% is out of reach: {} runs x {} sessions x {} repeats a side "
                                 "still detect {:.2f}%\n", target * 100, al.runs, al.sessions, al.repeats,
                                 al.detectable * 100);
        out += p.rounds.rounds
                   ? fmt::format("  or interleaved in one process (compare --a/--b): {} rounds detect {:.2f}%\n",
                                 p.rounds.rounds, p.rounds.detectable * 100)
                   : "  or interleaved in one process (compare --a/--b): more than 1000 rounds\n";
        out += boots_line(p.boots, redo);
    }
    for (const auto& l : o.left_out) out += fmt::format("\nleft out (no two usable runs): {}\n", l);
    out += fmt::format("\nOne run a side stays not testable with this calibration: a run's offset is one draw per "
                       "run. It plans: compare of saved runs of these settings on {} prints these counts for its "
                       "own tests and family (alpha {} at 80% power here, per test).\n", c.identity.hostname, alpha);
    return out;
}

} // namespace

int cmd_calibrate(const std::string& device, const CalibrateArgs& a, const std::atomic<bool>& interrupt) {
    RunArgs args = a.common;
    if (args.sessions.empty()) args.sessions = std::to_string(kDefaultSessions);
    if (args.repeats.empty()) args.repeats = std::to_string(kDefaultRepeats);
    auto plan = plan_run(args);  // every option checked before the first run
    lab::CalibrateRequest req;
    req.runs = parse_count("--runs", a.runs, 2, 1000);
    req.sessions = plan.settings.sessions;
    req.repeats = plan.settings.repeats;
    req.target = parse_number("--target", a.target, 1e-3, 100) / 100;
    req.alpha = parse_number("--alpha", a.alpha, 1e-6, 0.5);
    req.db = db_path(a.db);
    require_saveable(a.db);
    lab::open_kvm(device);  // a host without KVM is one line, not K failed runs
    req.run_words = child_words(device, args);
    lab::CalibrateOutcome out;
    try {
        out = lab::calibrate(req, interrupt, [&](size_t k) {
            note(fmt::format("calibrate: run {} of {}", k, req.runs));
        });
    } catch (const lab::Interrupted& e) {
        fmt::print(stderr, "exitbench: {}\n", e.what());
        return kInterrupted;
    }
    // A refused save costs nothing measured: the runs and the calibration are
    // kept in a file, with the command that stores them (as run's result).
    if (!out.not_saved.empty()) keep_unsaved_calibration(req.db, out.not_saved, out.calibration, out.runs);
    write_stdout(render(out, args, a.alpha, req.db, req.target));
    return out.not_saved.empty() ? kOk : kNotSaved;
}

namespace {

class CalibrateCommand : public Command {
public:
    explicit CalibrateCommand(CLI::App& root) : Command(nullptr) { app_ = add_calibrate_command(root, args_); }
    int run(const Context& ctx) override {
        args_.common.argv = ctx.argv;
        return cmd_calibrate(ctx.device, args_, ctx.interrupted);
    }
    bool emulable() const override { return false; }  // a calibration is of this host

private:
    CalibrateArgs args_;
};

} // namespace

std::unique_ptr<Command> calibrate_command(CLI::App& root) { return std::make_unique<CalibrateCommand>(root); }

} // namespace eb::cli
