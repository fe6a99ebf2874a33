#include <gtest/gtest.h>

#include "env/host_env.h"
#include "vmm/host.h"

using namespace eb;

TEST(Env, CpuinfoAndCmdlineFields) {
    std::string cpuinfo = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
                          "model name\t: Intel(R) Xeon(R) Gold 6442Y\nmicrocode\t: 0x2b0005c0\n";
    EXPECT_EQ(env::cpuinfo_field(cpuinfo, "microcode"), "0x2b0005c0");
    EXPECT_EQ(env::cpuinfo_field(cpuinfo, "model"), "143");
    EXPECT_EQ(env::cpuinfo_field(cpuinfo, "cpu family"), "6");
    EXPECT_EQ(env::cpuinfo_field(cpuinfo, "stepping").rfind("unreadable: ", 0), 0u);
    std::string cmdline = "BOOT_IMAGE=/vmlinuz spectre_bhi=vmexit mitigations=auto quiet";
    EXPECT_EQ(env::cmdline_param(cmdline, "spectre_bhi"), "vmexit");
    EXPECT_EQ(env::cmdline_param(cmdline, "isolcpus"), "not set");
}

TEST(Env, CaptureOnThisHostNeverInventsValues) {
    vmm::HostFacts h;
    h.cpu_model = "m";
    h.host_cpus = 1;
    auto facts = env::capture(h);
    std::map<std::string, std::string> m(facts.begin(), facts.end());
    EXPECT_EQ(m.size(), facts.size()) << "duplicate keys";
    for (const char* k : {"cpu.microcode", "kernel.cmdline", "kvm.backend", "msr.spec_ctrl.cpu0", "smt.control"})
        EXPECT_TRUE(m.count(k)) << k;
    // Without the msr module, the host SPEC_CTRL is unreadable and says why.
    const auto& sc = m["msr.spec_ctrl.cpu0"];
    EXPECT_TRUE(sc.rfind("0x", 0) == 0 || sc.rfind("unreadable: ", 0) == 0) << sc;
}

TEST(Env, DiffListsChangedAndOneSidedFacts) {
    env::Facts a = {{"kernel.release", "6.1"}, {"cpu.microcode", "0x1"}, {"only.a", "x"}};
    env::Facts b = {{"kernel.release", "6.6"}, {"cpu.microcode", "0x1"}, {"only.b", "y"}};
    auto d = env::diff(a, b);
    ASSERT_EQ(d.size(), 3u);
    EXPECT_EQ(d[0].key, "kernel.release");
    EXPECT_EQ(d[1].b, "(absent)");
    EXPECT_EQ(d[2].a, "(absent)");
}

// tsc.source is compared between runs: when the calibration agrees with KVM's
// rate, two probes must describe it in the same words, or every comparison of
// two runs would list it as a host difference.
TEST(Env, TscSourceIsTheSameWordsWhenTheCalibrationAgrees) {
    uint64_t khz = static_cast<uint64_t>(vmm::probe_host(std::nullopt).tsc_calibrated_mhz * 1000);
    auto a = vmm::probe_host(khz), b = vmm::probe_host(khz);
    if (a.tsc_source.find("agrees") == std::string::npos || b.tsc_source.find("agrees") == std::string::npos)
        GTEST_SKIP() << "the calibration did not agree within 1% twice on this busy host: " << a.tsc_source;
    EXPECT_EQ(a.tsc_source, b.tsc_source);
    EXPECT_EQ(a.tsc_source.find("MHz"), std::string::npos) << a.tsc_source;
}
