// A/B comparison of configurations. The unit of every verdict is the highest
// level of the design that differs between the sides: two sets of runs from
// one boot differ run to run, so the run is the unit (never a session inside
// one: its sessions share that run's process and moment); sides from different
// boots differ boot to boot, so the boot is. Interleaved rounds pair the
// configurations inside one process, so there the round is. Repeats inside one
// session only describe that session: they are summarised by their median.
// Effects are ratios of geometric means, worked out on log medians. A compare
// over several tests or configurations is a family: verdicts use Holm-adjusted
// p-values. Pure.
#pragma once
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "stats/inference.h"
#include "suite/calibration.h"
#include "suite/result.h"

namespace eb::suite {

enum class Verdict { Faster, Slower, NoDifference, NotTestable };
const char* verdict_name(Verdict v);

// Which executions are the independent units.
enum class Unit {
    Run,    // saved results from one boot (or with no boot ids): each run (file, saved run)
    Load,   // saved results of one boot whose sides come from different loads of a KVM module: each load's runs
    Boot,   // saved results whose sides come from different boots: each boot's runs as one unit
    Round,  // interleaved: configurations paired within each round of one process
};
const char* unit_name(Unit u);
// The fewest units a side needs for a verdict: two for most levels (one is
// no spread); three module loads, since loads of one boot are cheap to
// repeat and a Welch t on two loads a side has as little as one degree of
// freedom.
size_t min_units(Unit u);

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct SideSummary {
    std::string label;
    std::vector<double> unit_medians;  // cycles, one per unit
    size_t sessions = 0;               // sessions that measured the test
    size_t runs = 0;                   // runs (rounds) that measured it
    double center = 0;                 // geometric mean of unit_medians
    stats::Interval center_ci{kNaN, kNaN};  // 95% t interval on the logs; NaN with one unit
    // Log-scale SD (about the relative spread) each level of the nesting adds,
    // each estimated once: repeats within a session, sessions within a run,
    // runs (rounds) within a boot, boots. NaN where a level is not replicated
    // (e.g. one session per run): the level above then includes it.
    // At the load level, between_boot_sd stays NaN and between_load_sd is
    // the spread of the loads (of one boot).
    double within_sd = kNaN, between_session_sd = kNaN, between_run_sd = kNaN, between_boot_sd = kNaN;
    double between_load_sd = kNaN;
    size_t boots = 0;                  // distinct boot ids among the runs (0: none recorded)
    size_t loads = 0;                  // distinct module loads, when the load is the unit
    std::vector<std::string> dropped;  // sessions left out (a median that is not positive has no log)
    // Units far from the others: more than kOutlierSigmas robust SDs (1.4826
    // MAD of the unit values) from their median; needs 3 or more units.
    // "run 2: +4.10% from the median of the runs (6.2 robust SDs)".
    std::vector<std::string> outliers;

    size_t repeats = 0;                // typical repeats per session
    std::vector<uint64_t> batch_sizes; // distinct batch sizes seen, sorted
    std::string status;                // the worst over every session
    std::string detail;                // why, when a session was skipped or failed
    bool imported = false;             // a run on this side is an imported figure (another harness)
};

struct Effect {
    Verdict verdict = Verdict::NotTestable;
    double ratio = kNaN;                     // B / A of the geometric means, as observed
    stats::Interval ratio_ci{kNaN, kNaN};    // (1 - alpha), this test alone; NaN when not testable
    double p = kNaN;                         // raw, two-sided
    double p_holm = kNaN;                    // Holm-adjusted over the family: the verdict's p
    double q_bh = kNaN;                      // Benjamini-Hochberg q over the family
    double df = 0;
    double log_estimate = kNaN, se = kNaN;   // the t test's, on logs (the gate tests against PCT with them)
    double detectable = std::numeric_limits<double>::infinity();  // relative, at 80% power in this family
    // The df the detectable difference is worked out on: Welch's conservative
    // min(n_a, n_b) - 1 (the Satterthwaite df overstates the power when the
    // sides' spreads differ), n - 1 for paired rounds.
    double detect_df = 0;
    size_t units_a = 0, units_b = 0;
    std::string method;                      // the test that was applied
    std::string why;                         // NotTestable: the reason
};

// What a calibration recommends for one test, to reach `target` as the
// detectable difference at the family's first Holm level: the least-cost
// saved runs a side (Kalibera-Jones), and the live compare's rounds.
struct Plan {
    std::string test;
    std::string calibration;            // which: when, where, settings and age
    double target = 0, level = 0;       // relative; the two-sided alpha it is planned at
    stats::Allocation runs;             // runs x sessions x repeats a side, with what they detect and cost
    size_t rounds = 0;                  // interleaved rounds (0: beyond 1000)
    double rounds_detectable = kNaN;    // what they detect
};

struct TestComparison {
    std::string test;
    std::vector<SideSummary> configs;
    std::vector<Effect> vs_first;  // configs[i] against configs[0], i >= 1
};

struct ComparisonReport {
    std::vector<std::string> labels;
    Unit unit = Unit::Run;
    std::string level_why;              // why the verdicts are at this level
    std::vector<std::string> unseen;    // levels the verdicts cannot see, each with why
    std::vector<std::vector<std::string>> boot_ids;  // each side's boots (or loads), in order, when that is the unit
    double alpha = 0.05;
    size_t family = 0;                  // testable comparisons read together (the baseline apart)
    std::vector<TestComparison> tests;
    std::vector<std::string> warnings;  // drift in the baseline, batch sizes, overlap, host facts
    std::vector<std::string> advice;    // what to run to get a verdict, or a sharper one
    std::string run_options;            // saved runs: the first run's options (run_options()), for the advice
    // Saved runs with a calibration of their host and settings: what it
    // recommends per test (never used for a verdict).
    std::vector<Plan> plans;
    // A recipe whose preconditions fail on this host: why, and no verdict.
    std::vector<std::string> not_answerable;
    // Each side's host facts (its first run's env::capture()), for the Test
    // System block of --export-text.
    std::vector<std::vector<std::pair<std::string, std::string>>> side_env;
    // Each side's execution_of() its first run: "emulated" sides are said in
    // every output (a warning, the CSV's column, an OpenMetrics label).
    std::vector<std::string> side_execution;
};

// The reasons a recipe's question cannot be answered here: every effect
// becomes not testable with them, and the family is empty.
void mark_not_answerable(ComparisonReport& r, std::vector<std::string> reasons);
// The knob warnings (knob_not_applied) among the report's warnings.
std::vector<std::string> knob_warnings(const ComparisonReport& r);

inline constexpr double kOutlierSigmas = 3;
// The detectable difference a plan is for, unless the caller names one
// (compare's --target, else its gate's PCT): calibrate's default too.
inline constexpr double kPlanTarget = 0.01;

// A ratio as a signed percent change, as compare prints it ("+1.25%").
std::string pct_change(double ratio);

// Saved results: sides[k] holds every result file (saved run) of configuration k.
// The unit is the highest level that differs (run, module load or boot); a
// test with fewer than min_units(unit) units on a side is not testable, whether or not a calibration exists: a
// run's offset is one draw per run, which one pair cannot tell from a
// change. `cal` (calibrations that match the runs, lab::find_calibrations)
// only plans: the runs a side, or the rounds, that reach `target`.
ComparisonReport compare_saved(const std::vector<std::string>& labels,
                               const std::vector<std::vector<RunReport>>& sides, double alpha = 0.05,
                               const Calibrations& cal = {}, double target = kPlanTarget);

// Interleaved rounds: rounds[k][r] is configuration k's result in round r.
// Every configuration is paired with configuration 0 round by round.
ComparisonReport compare_rounds(const std::vector<std::string>& labels,
                                const std::vector<std::vector<RunReport>>& rounds, double alpha = 0.05);

} // namespace eb::suite
