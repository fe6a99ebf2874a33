// compare --host-profile's per-round differential on synthetic profiles: a
// function whose share truly moves is flagged; identical configurations flag
// nothing at the family level but at about the family's alpha over many
// simulated comparisons; the table says which moved, or that nothing did.
#include <cmath>
#include <cstdio>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "profile/host_diff.h"
#include "report/flame_diff.h"
#include "report/host_diff_text.h"

namespace eb::profile {
namespace {

constexpr double kMhz = 1000;  // a cycle is a ns

// One round's profile: `samples` drawn from the functions' true shares
// (multinomially, each below a common root), over 1000 sampled iterations
// costing `ns_per_iter` each.
TestHostProfile draw(const std::string& test, const std::map<std::string, double>& shares, uint64_t samples,
                     double ns_per_iter, std::mt19937_64& rng) {
    TestHostProfile p;
    p.test = test;
    uint64_t left = samples;
    double rest = 1;
    for (const auto& [f, share] : shares) {
        std::binomial_distribution<uint64_t> pick(left, std::min(1.0, share / rest));
        uint64_t n = rest > 0 ? pick(rng) : 0;
        if (n) p.add({"vcpu_run", f}, n);
        left -= n;
        rest -= share;
    }
    p.sampled = {1, 1000, ns_per_iter * 1000};
    return p;
}

struct Config {
    std::map<std::string, double> shares;
    double ns;
};

std::vector<RoundProfiles> rounds_of(const Config& c, size_t rounds, std::mt19937_64& rng, uint64_t samples = 2000) {
    std::normal_distribution<double> noise(1.0, 0.02);  // round-to-round drift of the cost
    std::vector<RoundProfiles> out;
    for (size_t r = 0; r < rounds; ++r) out.push_back({draw("ipi", c.shares, samples, c.ns * noise(rng), rng)});
    return out;
}

// xAPIC: the write goes through full emulation; x2APIC: the fastpath, at half the cost.
const Config kEmulated{{{"[guest]", 0.3}, {"emulate_instruction", 0.4}, {"vcpu_enter_exit", 0.3}}, 1000};
const Config kFastpath{{{"[guest]", 0.6}, {"fastpath_set_msr", 0.1}, {"vcpu_enter_exit", 0.3}}, 500};

TEST(HostDiff, AFunctionWhoseTimeMovesIsFlagged) {
    std::mt19937_64 rng(7);
    auto a = rounds_of(kEmulated, 6, rng);
    auto b = rounds_of(kFastpath, 6, rng);
    auto d = host_diff("xapic", "x2apic", a, b, kMhz);
    EXPECT_EQ(d.rounds, 6u);
    EXPECT_EQ(d.family, 5u);  // vcpu_run, [guest], the two handlers, the entry
    std::map<std::string, Move> moves;
    for (const auto& f : d.functions) moves[f.function] = f.move;
    EXPECT_EQ(moves["emulate_instruction"], Move::Down);  // 400 ns -> 0
    EXPECT_EQ(moves["fastpath_set_msr"], Move::Up);       // 0 -> 50 ns
    EXPECT_EQ(moves["vcpu_run"], Move::Down);             // the whole cost halved
    EXPECT_EQ(moves["vcpu_enter_exit"], Move::Down);      // 300 -> 150 ns
    EXPECT_EQ(moves["[guest]"], Move::None);              // 300 ns either way
    const auto& top = d.functions.front();                // by |change|
    EXPECT_EQ(top.function, "vcpu_run");
    EXPECT_NEAR(top.t.estimate, -500, 30);
    EXPECT_LT(top.t.ci.lo, top.t.estimate);
    EXPECT_GT(top.t.ci.hi, top.t.estimate);
}

// Identical configurations: over many simulated comparisons, any function
// flagged at the family level is a false verdict; Holm keeps their rate at
// or below alpha.
TEST(HostDiff, IdenticalConfigurationsFlagNothingBeyondTheFamilyAlpha) {
    std::mt19937_64 rng(11);
    const Config same{{{"[guest]", 0.5}, {"a", 0.2}, {"b", 0.15}, {"c", 0.1}, {"d", 0.05}}, 800};
    constexpr int kSims = 1000;
    int flagged = 0;
    for (int i = 0; i < kSims; ++i) {
        auto d = host_diff("A", "B", rounds_of(same, 5, rng, 500), rounds_of(same, 5, rng, 500), kMhz);
        ASSERT_EQ(d.family, 6u);
        flagged += !d.moved().empty();
    }
    double rate = double(flagged) / kSims;
    double mc_error = std::sqrt(0.05 * 0.95 / kSims);
    std::printf("identical configurations: %d of %d comparisons flagged a function (%.3f +- %.3f Monte Carlo SE)\n",
                flagged, kSims, rate, std::sqrt(rate * (1 - rate) / kSims));
    EXPECT_LE(rate, 0.05 + 3 * mc_error);
}

TEST(HostDiff, OneRoundIsNotTestableAndOneSidedTestsAreNoted) {
    std::mt19937_64 rng(3);
    auto a = rounds_of(kEmulated, 1, rng);
    auto b = rounds_of(kFastpath, 1, rng);
    b[0].push_back(draw("only-b", kFastpath.shares, 100, 500, rng));
    auto d = host_diff("A", "B", a, b, kMhz);
    EXPECT_EQ(d.family, 0u);
    ASSERT_FALSE(d.functions.empty());
    for (const auto& f : d.functions) EXPECT_EQ(f.move, Move::NotTestable) << f.function;
    ASSERT_EQ(d.notes.size(), 1u);
    EXPECT_NE(d.notes[0].find("only-b: not compared"), std::string::npos) << d.notes[0];
    EXPECT_NE(report::render_host_diff(d).find("nothing could be tested"), std::string::npos);
}

TEST(HostDiffText, MovedFunctionsOrSayNothingMoved) {
    std::mt19937_64 rng(5);
    auto moved = report::render_host_diff(
        host_diff("xapic", "x2apic", rounds_of(kEmulated, 6, rng), rounds_of(kFastpath, 6, rng), kMhz));
    EXPECT_NE(moved.find("host profile, x2apic vs xapic"), std::string::npos) << moved;
    EXPECT_NE(moved.find("emulate_instruction"), std::string::npos) << moved;
    EXPECT_NE(moved.find("fastpath_set_msr"), std::string::npos) << moved;
    EXPECT_NE(moved.find("faster"), std::string::npos) << moved;
    EXPECT_EQ(moved.find("[guest]"), std::string::npos) << "did not move, so not in the table:\n" << moved;
    EXPECT_NE(moved.find("4 of 5 function(s) tested moved"), std::string::npos) << moved;

    auto still = report::render_host_diff(
        host_diff("A", "B", rounds_of(kEmulated, 6, rng), rounds_of(kEmulated, 6, rng), kMhz));
    EXPECT_NE(still.find("nothing measurably moved: none of the 4 function(s) tested"), std::string::npos) << still;
}

} // namespace
} // namespace eb::profile

namespace eb::profile {
namespace {

// The differential tree: each frame's ns per iteration on both sides,
// averaged over the rounds, its width their mean.
TEST(HostDiffFlame, FramesCarryBothSidesTimePerIteration) {
    auto one = [](const char* leaf, double cycles) {
        TestHostProfile p;
        p.test = "t";
        p.add({"run", leaf}, 3);
        p.add({"run", "common"}, 1);
        p.sampled = {1, 10, cycles * 10};
        return RoundProfiles{p};
    };
    std::vector<RoundProfiles> a{one("slow", 400), one("slow", 800)}, b{one("fast", 200), one("fast", 200)};
    auto tree = report::diff_flame_tree("t", a, b, kMhz);
    ASSERT_FALSE(tree.is_null());
    EXPECT_DOUBLE_EQ(tree["a"].get<double>(), 600);  // the mean of 400 and 800 ns
    EXPECT_DOUBLE_EQ(tree["b"].get<double>(), 200);
    EXPECT_DOUBLE_EQ(tree["value"].get<double>(), 400);
    const auto& run = tree["children"][0];
    ASSERT_EQ(run["children"].size(), 3u);  // common, fast, slow (name order)
    EXPECT_EQ(run["children"][1]["name"], "fast");
    EXPECT_DOUBLE_EQ(run["children"][1]["a"].get<double>(), 0);
    EXPECT_DOUBLE_EQ(run["children"][1]["b"].get<double>(), 150);
    EXPECT_DOUBLE_EQ(run["children"][2]["a"].get<double>(), 450);
    EXPECT_TRUE(report::diff_flame_tree("other", a, b, kMhz).is_null());
}

} // namespace
} // namespace eb::profile
