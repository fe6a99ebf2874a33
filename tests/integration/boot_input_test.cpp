// boot, compare --kernel-a/-b and bisect-step refuse bad input in one line
// before anything boots: no QEMU is needed here (the boots themselves are
// tests/nested/kernel_ab_test.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_runner.h"
#include "tests/temp_dir.h"

namespace {

class BootInput : public eb::test::TempDirTest {
protected:
    // A file with a bzImage setup header naming release 9.9.9-eb-test.
    std::string fake_kernel() {
        std::string img(0x1000, '\0');
        img.replace(0x202, 4, "HdrS");
        img[0x206] = 0x0f;
        img[0x207] = 0x02;
        img[0x20f] = 0x06;  // kernel_version at 0x200 + 0x600
        img.replace(0x800, 14, "9.9.9-eb-test ");
        std::string p = temp_path("vmlinuz");
        std::ofstream(p, std::ios::binary) << img;
        return p;
    }
    // A module tree that lists every module boot needs.
    std::string fake_modules() {
        std::string d = temp_path("mods");
        std::filesystem::create_directories(d);
        std::ofstream dep(d + "/modules.dep");
        for (const char* m : {"kvm", "kvm-amd", "kvm-intel", "virtio_pci", "virtio_console"}) {
            dep << m << ".ko:\n";
            std::ofstream(d + "/" + m + ".ko") << "";
        }
        return d;
    }
};

void expect_one_line(const CliResult& r, int rc, const std::string& needle) {
    EXPECT_EQ(r.rc, rc) << r.err;
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

} // namespace

TEST_F(BootInput, AMissingOrNonBzImageKernelIsRefused) {
    expect_one_line(run_cli({"boot", "--kernel", temp_path("absent"), "--", "run", "cpuid"}), 2, "no such file");
    std::ofstream(temp_path("text")) << "not a kernel at all, but long enough to hold a header\n";
    expect_one_line(run_cli({"boot", "--kernel", temp_path("text"), "--", "run", "cpuid"}), 2,
                    "not a bzImage (no \"HdrS\" setup header at 0x202)");
}

TEST_F(BootInput, AKernelWithoutKvmModulesIsRefused) {
    expect_one_line(run_cli({"boot", "--kernel", fake_kernel(), "--", "run", "cpuid"}), 2,
                    "no KVM modules for kernel 9.9.9-eb-test");
    std::filesystem::create_directories(temp_path("empty"));
    std::ofstream(temp_path("empty/modules.dep")) << "kernel/e1000.ko:\n";
    expect_one_line(run_cli({"boot", "--kernel", fake_kernel(), "--modules", temp_path("empty"), "--", "run"}), 2,
                    "no kvm module");
}

TEST_F(BootInput, NoQemuIsAHostError) {
    CliOptions o;
    o.env = {"PATH=" + temp_path("no-bin")};
    expect_one_line(run_cli({"boot", "--kernel", fake_kernel(), "--modules", fake_modules(), "--no-save", "--", "run"}, o),
                    3, "no qemu-system-x86_64 on this host (install qemu-system-x86)");
}

TEST_F(BootInput, BadOptionsAreRefused) {
    auto k = fake_kernel(), m = fake_modules();
    expect_one_line(run_cli({"boot", "--kernel", k, "--modules", m, "--modprobe", "kvm_amd $(reboot)", "--", "run"}), 2,
                    "is not NAME=VALUE");
    expect_one_line(run_cli({"boot", "--kernel", k, "--modules", m, "--accel", "hvf", "--", "run"}), 2, "--accel");
    expect_one_line(run_cli({"boot", "--kernel", k, "--modules", m, "--cpus", "0", "--", "run"}), 2, "--cpus");
    expect_one_line(run_cli({"boot", "--kernel", k, "--modules", m, "--", "run", "--json", "x"}), 2, "set by boot itself");
    expect_one_line(run_cli({"compare", "--kernel-a", k, "--boots", "2", "cpuid"}), 2, "needs --kernel-a and --kernel-b");
    expect_one_line(run_cli({"compare", "--kernel-a", k, "--kernel-b", k, "--boots", "2", "cpuid"}), 2, "same kernel");
    expect_one_line(run_cli({"compare", "--kernel-a", k, "--kernel-b", k, "--append-b", "x", "cpuid"}), 2, "--boots");
    expect_one_line(run_cli({"compare", "--kernel-a", k, "--kernel-b", k, "--append-b", "x", "--boots", "2", "--rounds",
                             "4", "cpuid"}), 2, "--rounds does not apply to --kernel-a/--kernel-b");
}

TEST_F(BootInput, BisectStepStopsTheBisectionOnItsOwnBadInput) {
    // 128: git bisect run stops; 1 to 127 would mark the commit bad.
    auto r = run_cli({"bisect-step", "--good", "no-such-label", "--kernel", fake_kernel(), "--db", temp_path("h.db"),
                      "--boots", "3", "cpuid"});
    EXPECT_EQ(r.rc, 128) << r.err;
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("stopping the bisection"), std::string::npos) << r.err;
    // A command line the parser rejects, or a kernel that is not one: 128 too, never 2 or 3 ("bad").
    for (const auto& bad : std::vector<std::vector<std::string>>{
             {"bisect-step", "--kernel", fake_kernel(), "--boots", "3", "cpuid"},  // no --good
             {"bisect-step", "--good", "x", "--kernel", fake_kernel(), "--no-such-option", "cpuid"},
             {"--device", "/dev/kvm", "bisect-step", "--good", "x", "--kernel", fake_kernel(), "--boots", "zero"},
             // the run options are compare's, checked before any boot
             {"bisect-step", "--good", "x", "--kernel", fake_kernel(), "cpuid", "-n", "zero"}}) {
        auto e = run_cli(bad);
        EXPECT_EQ(e.rc, 128) << bad.back() << ": " << e.err;
        EXPECT_TRUE(one_line(e.err)) << e.err;
    }
}

// boot --add of nothing, and --exec without its command: one line each, no boot.
TEST_F(BootInput, AMissingAddAndAnExecWithoutCommandAreRefused) {
    auto k = fake_kernel(), m = fake_modules();
    expect_one_line(run_cli({"boot", "--kernel", k, "--modules", m, "--add", temp_path("absent"), "--exec", "--", "true"}),
                    2, "--add " + temp_path("absent") + ": no such file or folder");
    expect_one_line(run_cli({"boot", "--kernel", k, "--modules", m, "--exec"}), 2,
                    "boot --exec needs the command to run, after --");
}
