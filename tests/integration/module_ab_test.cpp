// compare --module, the module parameter A/B, through the built exitbench:
// its refusals on any host, and inside the nested kvm_amd (where the module
// can be reloaded without hurting anyone) 3 loads a side of npt=1 vs npt=0,
// a refusal while another process holds /dev/kvm, and SIGTERM mid-way, each
// leaving kvm_amd loaded with the parameters it had.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "kvm_test.h"
#include "sys/process.h"

namespace {

namespace fs = std::filesystem;

TEST(ModuleAbCli, BadRequestsAreOneLineAndExitTwo) {
    std::vector<std::vector<std::string>> bad = {
        {"compare", "--module", "kvm_foo", "--a", "npt=1", "--b", "npt=0", "cpuid"},
        {"compare", "--module", "kvm_amd", "--a", "npt=1", "cpuid"},
        {"compare", "--module", "kvm_amd", "--a", "npt=1", "--b", "npt=0", "--rounds", "4", "cpuid"},
        {"compare", "--module", "kvm_amd", "--a", "npt=1", "--b", "npt=0", "--loads", "0", "cpuid"},
        {"compare", "--module", "kvm_amd", "--kernel-a", "/boot/x", "--a", "npt=1", "--b", "npt=0", "cpuid"},
    };
    for (const auto& args : bad) {
        auto r = run_cli(args);
        EXPECT_EQ(r.rc, 2) << args[2] << ": " << r.err;
        EXPECT_TRUE(one_line(r.err)) << r.err;
    }
}

// Where kvm_amd is not loaded (no /dev/kvm here, or an Intel host), one line
// says so and nothing is loaded.
TEST(ModuleAbCli, AModuleNotLoadedIsRefused) {
    if (fs::exists("/sys/module/kvm_amd/initstate")) GTEST_SKIP() << "kvm_amd is loaded on this host";
    auto r = run_cli({"compare", "--module", "kvm_amd", "--a", "npt=1", "--b", "npt=0", "cpuid", "--no-save"});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("kvm_amd is not loaded on this host"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists("/sys/module/kvm_amd/initstate"));
}

// kvm_amd's parameters as sysfs shows them.
std::map<std::string, std::string> amd_params() {
    std::map<std::string, std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/sys/module/kvm_amd/parameters", ec)) {
        std::ifstream f(e.path());
        std::getline(f, out[e.path().filename()]);
    }
    return out;
}

// Only in exitbench boot's guest: reloading the module of a host would pull
// it from under that host's VMs.
class ModuleAbGuest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::getenv("EXITBENCH_GUEST"))
            GTEST_SKIP() << "reloads kvm_amd: runs only inside exitbench boot's guest (the nested stage), where no "
                            "other VM can be hurt";
        if (!fs::exists("/sys/module/kvm_amd/initstate")) GTEST_SKIP() << "this guest loaded kvm_intel";
    }
};

KVM_TEST_F(ModuleAbGuest, ThreeLoadsASideGiveAVerdictAndTheParametersComeBack) {
    auto before = amd_params();
    std::string json = temp_path("c.json");
    auto r = run_cli({"compare", "--module", "kvm_amd", "--a", "npt=1", "--b", "npt=0", "--loads", "3", "cpuid", "-n",
                      "64", "-r", "2", "--sessions", "1", "--no-save", "--export-json", json});
    ASSERT_TRUE(r.rc == 0 || r.rc == 4) << r.err;  // a verdict, or honestly not testable
    EXPECT_NE(r.err.find("load 6 of 6 (B: kvm_amd npt=0)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("kvm_amd restored: its"), std::string::npos) << r.err;
    std::ifstream j(json);
    auto doc = nlohmann::json::parse(j);
    EXPECT_EQ(doc["unit"], "load") << doc.dump();
    EXPECT_EQ(amd_params(), before);
}

KVM_TEST_F(ModuleAbGuest, AnotherUserOfKvmIsRefusedAndNothingChanges) {
    auto before = amd_params();
    eb::sys::Spawn hold{{"sleep", "60"}, "/dev/kvm"};  // its stdin holds /dev/kvm open
    eb::sys::Process holder(hold);
    auto r = run_cli({"compare", "--module", "kvm_amd", "--a", "npt=1", "--b", "npt=0", "cpuid", "--no-save"});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("kvm_amd is in use (1 reference"), std::string::npos) << r.err;
    EXPECT_EQ(amd_params(), before);
}

KVM_TEST_F(ModuleAbGuest, SigtermMidWayRestoresTheModule) {
    auto before = amd_params();
    CliOptions opt;
    opt.signal = SIGTERM;
    opt.sigint_after_s = 0;
    opt.wait_for = "load 3 of 6";
    auto r = run_cli({"compare", "--module", "kvm_amd", "--a", "npt=1", "--b", "npt=0", "--loads", "3", "cpuid", "-n",
                      "64", "-r", "2", "--sessions", "1", "--no-save"}, opt);
    EXPECT_NE(r.rc, 0) << r.err;
    EXPECT_NE(r.err.find("kvm_amd restored: its"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::exists("/sys/module/kvm_amd/initstate"));
    EXPECT_EQ(amd_params(), before);
}

} // namespace
