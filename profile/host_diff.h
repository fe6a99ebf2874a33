// What moved between two configurations' host profiles in an interleaved
// compare. Each round yields one profile per configuration, and the round is
// the unit: per function, its time per iteration (its share of the samples
// times the sampled batches' cost) in B less that in A, round by round, then
// a paired t across the rounds, read with Holm's correction over every
// function tested (as compare reads its tests). Pure; no I/O.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "profile/host_profile.h"
#include "stats/ab.h"

namespace eb::profile {

// One configuration's profiles of one round, any number of tests.
using RoundProfiles = std::vector<TestHostProfile>;

struct HostDiffOptions {
    double alpha = 0.05;
    // A function is tested when its mean share of the samples (with
    // children) reaches this in A or in B...
    double min_share = 0.01;
    // ...and it is among the first this many of its test by that share.
    size_t max_per_test = 24;
};

enum class Move { Up, Down, None, NotTestable };
const char* move_name(Move m);

struct FunctionMove {
    std::string test, function;
    double a_ns = 0, b_ns = 0;       // mean over the rounds of ns per iteration, with children
    double a_self_ns = 0, b_self_ns = 0;
    stats::TTest t;                  // of B - A in ns per iteration, paired by round
    double p_holm = 1;               // the verdict's p
    Move move = Move::NotTestable;
    std::string why;                 // NotTestable: the reason
};

// A function sampled on one side only (in no unit of the other side's), in
// ns per iteration with children averaged over its side's units: a new
// path, or one no longer taken. Listed whatever its share.
struct OneSided {
    std::string test, function;
    bool in_b = false;               // else in A only
    double ns = 0;
    uint64_t samples = 0;            // over that side's units
};

struct HostDiff {
    std::string label_a, label_b;
    bool paired = true;              // rounds, paired; else saved runs, each side's runs a sample
    size_t rounds = 0;               // rounds that hold a profile of the test on both sides (runs: the fewer a side)
    double alpha = 0.05;
    size_t family = 0;               // functions tested together
    std::vector<FunctionMove> functions;  // every function tested, by |change|, largest first
    std::vector<OneSided> one_sided;  // saved runs: by test, then ns, largest first
    std::vector<std::string> notes;  // tests profiled on one side only, rounds left out
    // The functions whose move is Up or Down.
    std::vector<const FunctionMove*> moved() const;
};

// a[r] and b[r]: round r's profiles of A and B. `tsc_mhz` turns the sampled
// batches' cycles into ns.
HostDiff host_diff(const std::string& label_a, const std::string& label_b, const std::vector<RoundProfiles>& a,
                   const std::vector<RoundProfiles>& b, double tsc_mhz, const HostDiffOptions& o = {});

// One side's unit of saved runs: a run's profiles and its TSC rate.
struct RunProfiles {
    RoundProfiles profiles;
    double tsc_mhz = 0;
};
// Every test profiled in a run of either side, in the order first met, A's first.
std::vector<std::string> tests_of(const std::vector<RunProfiles>& a, const std::vector<RunProfiles>& b);
// Saved runs, the run as the unit: per function, Welch's t of B's runs
// against A's (two or more a side, else not testable), Holm over every
// function tested; and every function sampled on one side only.
HostDiff host_diff_runs(const std::string& label_a, const std::string& label_b, const std::vector<RunProfiles>& a,
                        const std::vector<RunProfiles>& b, const HostDiffOptions& o = {});

// One function's ns per iteration in a profile, with children (`total`) or
// itself as the leaf; 0 when it was not sampled.
double function_ns(const TestHostProfile& p, const std::string& function, bool total, double tsc_mhz);

} // namespace eb::profile
