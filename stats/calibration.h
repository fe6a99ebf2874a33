// The dimensioning experiment of Kalibera & Jones ("Rigorous Benchmarking in
// Reasonable Time", ISMM 2013) for exitbench's design: repeats within sessions
// within runs. From K runs of S sessions of R repeats: the variance each level
// adds, with its degrees of freedom; the counts per level that reach a target
// detectable difference at least cost, and the interleaved rounds that do.
// It plans; it tests nothing (one run a side is not testable: its offset is
// one draw per run). All on logs, so spreads are relative. Pure; no I/O.
#pragma once
#include <cstddef>
#include <vector>

#include "stats/ab.h"

namespace eb::stats {

// A variance component and its (Satterthwaite) degrees of freedom; df 0 when
// the estimate is floored at 0 or the level is not replicated.
struct Component {
    double var = 0;
    double df = 0;
};

// A median of n values with normal noise has about pi/2 times the variance of
// their mean: the factor the repeat level enters a session median with.
inline constexpr double kMedianEfficiency = 1.5707963267948966;

struct LevelTable {
    Component repeat;    // within a session: pooled 1.4826 MAD of log repeats (a 55% repeat does not move it)
    Component session;   // a session median about its run, the repeats' share (pi/2 var / r) taken out
    Component run;       // a run's offset: spread of run means minus the sessions' share (mean of 1/n)
    // What compare's test uses, as measured: the sample variance of the run
    // means (mean of session log medians) and the pooled variance of session
    // log medians about their run's mean, each with its exact df.
    Component run_mean;  // df K - 1
    Component session_median;  // df N - K
    double inv_sessions = 0;   // mean over runs of 1 / sessions: what run_mean holds of session_median
    double repeats = 0;        // mean repeats per session
    size_t runs = 0, sessions = 0;  // runs with sessions; sessions in all
};

// runs[k][s] holds the log of each repeat of session s of run k, and
// medians[k][s] that session's unit statistic as compare computes it (the log
// of the median cost: with an even count it is not the median of the logs).
// Sessions without repeats and runs without sessions are ignored. Throws
// std::invalid_argument with fewer than two runs holding sessions.
LevelTable estimate_levels(const std::vector<std::vector<std::vector<double>>>& runs,
                           const std::vector<std::vector<double>>& medians);
// The same with each session's median of its logs as its statistic.
LevelTable estimate_levels(const std::vector<std::vector<std::vector<double>>>& runs);

// Pooled (1.4826 MAD)^2 of log repeats about their session's median, with
// (n - 1) df per session: the repeat level of estimate_levels().
Component robust_repeats(const std::vector<std::vector<double>>& sessions);
// A MAD-based variance carries about this share of its df's information
// (its asymptotic efficiency for normal noise): the df an F test may use.
inline constexpr double kMadEfficiency = 0.37;

// Seconds each level costs: starting a run (process, KVM, image: what is not
// inside a test's sessions), starting a session (a fresh VM, its warm-up), and
// one measured repeat.
struct Costs {
    double run = 0, session = 0, repeat = 0;
};

// Counts per side at each level (repeats per session, sessions per run, runs)
// reaching `target` (relative, e.g. 0.01) as the detectable difference of a
// two-sided test at alpha with this power between two such sides, at the
// least cost (seconds per side). The within-level counts are the Kalibera-Jones
// optimum sqrt(c_above var_below / (c_below var_above)), tried rounded down and
// up; runs are then the fewest that reach the target on runs - 1 df (the test
// needs no calibration). reachable is false when 1000 runs do not.
struct Allocation {
    size_t runs = 0, sessions = 0, repeats = 0;
    double detectable = 0;  // at those counts
    double cost_s = 0;      // per side
    bool reachable = false;
};
Allocation allocate(const LevelTable& t, const Costs& c, double target, double alpha = 0.05, double power = 0.8);

// The fewest interleaved rounds (paired by round, n - 1 df) whose test
// detects `target` at `alpha` with this power: a round pairs one session of
// each configuration in one process, so its difference holds two sessions'
// spread about their run (session_median), not the run's own offset.
// rounds 0 (and detectable NaN) when 1000 rounds do not reach it.
struct RoundsPlan {
    size_t rounds = 0;
    double detectable = 0;
};
RoundsPlan plan_rounds(const LevelTable& t, double target, double alpha = 0.05, double power = 0.8);

// Variance of one side's estimate (a mean of log session medians) for these counts.
double design_variance(const LevelTable& t, double runs, double sessions, double repeats);

} // namespace eb::stats
