#include <gtest/gtest.h>

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
