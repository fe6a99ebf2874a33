#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <random>

#include "report/merge.h"
#include "sample_report.h"

using namespace eb;

namespace {
report::MergeInput host(const std::string& name, double scale, const std::string& kernel = "6.1.0") {
    auto r = sample_report();
    r.schema_version = 3;
    r.provenance.hostname = name;
    r.env = {{"cpu.model", "Test CPU"}, {"cpu.microcode", "0xa0011d1"}, {"kernel.release", kernel}, {"kvm.backend", "svm"}};
    for (auto& t : r.results)
        for (auto& s : t.sessions)
            for (auto& x : s.samples) x *= scale;
    return {name + ".json", r};
}
} // namespace

TEST(Merge, GroupsHostsAndFlagsTheOutlier) {
    auto m = report::merge_runs({host("a", 1.0), host("b", 1.004), host("c", 0.997), host("d", 1.15),
                                 host("e", 1.0, "6.12.0")});
    ASSERT_EQ(m.groups.size(), 2u);
    const auto& g = m.groups[0];
    EXPECT_EQ(g.kernel, "6.1.0");
    EXPECT_EQ(g.hosts.size(), 4u);
    const auto& cpuid = g.tests[1];
    ASSERT_EQ(cpuid.test, "cpuid");
    for (const auto& h : cpuid.hosts) EXPECT_EQ(h.outlier, h.host == "d") << h.host;
    EXPECT_NEAR(cpuid.spread_pct, (1.15 - 0.997) / 1.002 * 100, 0.5);
    EXPECT_TRUE(m.warnings.empty());
    auto text = report::render_merged(m);
    EXPECT_NE(text.find("d 1420 (+14.8%)"), std::string::npos) << text;
    EXPECT_NE(text.find("kernel 6.12.0"), std::string::npos) << text;
    EXPECT_EQ(text.find("\\x0a"), std::string::npos) << text;  // newlines stay newlines
}

TEST(Merge, SaysWhatItMergesAcrossSchemasAndTestSets) {
    auto old = host("old", 1.0);
    old.run.schema_version = 2;
    old.run.results.erase(old.run.results.begin() + 1);  // no cpuid
    auto m = report::merge_runs({host("a", 1.0), old});
    ASSERT_EQ(m.warnings.size(), 3u);
    EXPECT_NE(m.warnings[0].find("schema version 2 (old.json)"), std::string::npos) << m.warnings[0];
    EXPECT_NE(m.warnings[2].find("cpuid (1 of 2 files)"), std::string::npos) << m.warnings[2];
}

TEST(Merge, FilesOfOneHostAreItsRunsNotMoreHosts) {
    // a twice (1.0 and 1.2: median 1.1), b and c: three hosts, not four, and a is not an outlier.
    auto m = report::merge_runs({host("a", 1.0), host("a", 1.2), host("b", 1.1), host("c", 1.1)});
    ASSERT_EQ(m.groups.size(), 1u);
    EXPECT_EQ(m.groups[0].hosts, (std::vector<std::string>{"a", "b", "c"}));
    const auto& cpuid = m.groups[0].tests[1];
    ASSERT_EQ(cpuid.hosts.size(), 3u);
    EXPECT_EQ(cpuid.hosts[0].runs, 2u);
    EXPECT_NEAR(cpuid.hosts[0].cycles, cpuid.hosts[1].cycles, 1e-6 * cpuid.hosts[1].cycles);
    for (const auto& h : cpuid.hosts) EXPECT_FALSE(h.outlier) << h.host;
    ASSERT_EQ(m.warnings.size(), 1u);
    EXPECT_NE(m.warnings[0].find("a has 2 files in one group"), std::string::npos) << m.warnings[0];
}

// The outlier flag on simulated fleets of 8 hosts, each giving 2 runs, with
// the noise a fleet has: every run adds 1% (lognormal, between runs), and
// hosts may truly differ from each other (between hosts). Measured: the
// per-host false-positive rate, and the power for one host 10% slower.
struct FleetSim {
    std::mt19937_64 rng{11};
    double host_spread;  // sigma of the hosts' own log costs
    static constexpr int kHosts = 8;

    std::vector<report::HostFigure> fleet(double slow) {
        std::normal_distribution<double> between_hosts(0, host_spread), between_runs(0, 0.01);
        std::vector<report::MergeInput> in;
        for (int h = 0; h < kHosts; ++h) {
            double own = std::exp(between_hosts(rng)) * (h == 0 ? slow : 1.0);
            for (int run = 0; run < 2; ++run) in.push_back(host("h" + std::to_string(h), own * std::exp(between_runs(rng))));
        }
        return report::merge_runs(in).groups.at(0).tests.at(1).hosts;  // cpuid
    }
    // {false positives per host among equal hosts, share of fleets where the slow host is flagged}
    std::pair<double, double> measure(int fleets) {
        int false_flags = 0, caught = 0;
        for (int f = 0; f < fleets; ++f) {
            for (const auto& h : fleet(1.0)) false_flags += h.outlier;
            caught += fleet(1.10)[0].outlier;
        }
        return {double(false_flags) / (fleets * kHosts), double(caught) / fleets};
    }
};

// Identical hosts: only run-to-run noise, which the 2% floor must absorb.
TEST(Merge, OutlierFlagOnIdenticalHostsIsRareAndATenPercentHostIsCaught) {
    FleetSim sim{.host_spread = 0.0};
    auto [fpr, power] = sim.measure(300);
    std::printf("identical hosts: false positives %.4f per host, power %.3f for a host 10%% off\n", fpr, power);
    EXPECT_LT(fpr, 0.005);
    EXPECT_GT(power, 0.95);
}

// Hosts whose own costs truly spread by 1%: a 3-MAD rule flags 0.27% of
// normal data in theory, but the MAD of 8 hosts is itself noisy. Measured
// here: 2.0% of hosts (each at least 2% off its group median); the bound is
// a regression guard for that figure, which docs/exports.md states.
TEST(Merge, OutlierFlagRateWhenHostsTrulyDifferByOnePercent) {
    FleetSim sim{.host_spread = 0.01};
    auto [fpr, power] = sim.measure(300);
    std::printf("hosts 1%% apart: flagged %.4f per host, power %.3f for a host 10%% off\n", fpr, power);
    EXPECT_LT(fpr, 0.04);
    EXPECT_GT(power, 0.95);
}
