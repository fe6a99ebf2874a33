// run --host-profile from the outside: the refusal where this user may not
// sample the kernel, the usage errors, and (with /dev/kvm) the folded file.
#include <fstream>
#include <regex>
#include <unistd.h>

#include <algorithm>
#include <sstream>

#include "cli_runner.h"

namespace {

int paranoid() {
    std::ifstream f("/proc/sys/kernel/perf_event_paranoid");
    int v = -100;
    f >> v;
    return v;
}

// As `nobody`, with kernel.perf_event_paranoid >= 2, perf_event_open must
// refuse kernel sampling: one line naming the setting, exit 3, before /dev/kvm
// is even opened (so this runs where there is none).
TEST(HostProfile, RefusedWithoutPermission) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to become an unprivileged user (setpriv)";
    if (access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "setpriv (util-linux) is not installed";
    int p = paranoid();
    if (p < 2) GTEST_SKIP() << "kernel.perf_event_paranoid is " << p << ": any user may sample the kernel here";
    CliOptions o;
    o.wrap = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
    auto r = run_cli({"run", "cpuid", "--host-profile", "--no-save", "--sessions", "1"}, o);
    EXPECT_EQ(r.rc, 3) << r.err;
    EXPECT_NE(r.err.find("perf_event_paranoid is " + std::to_string(p)), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "");
}

TEST(HostProfile, UsageErrors) {
    auto r = run_cli({"run", "cpuid", "--host-profile=0", "--no-save"});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("--host-profile"), std::string::npos) << r.err;
    r = run_cli({"run", "cpuid", "--host-profile-folded", temp_path("f.folded"), "--no-save"});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("needs --host-profile"), std::string::npos) << r.err;
    r = run_cli({"run", "cpuid", "--host-profile", "--host-profile-folded", "/", "--no-save"});
    EXPECT_EQ(r.rc, 2) << r.err;  // a directory is refused before anything runs
    r = run_cli({"compare", "cpuid", "--a", "", "--b", "", "--host-profile=0", "--no-save"});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("--host-profile"), std::string::npos) << r.err;
    r = run_cli({"compare", temp_path("a.json"), temp_path("b.json"), "--host-profile"});
    EXPECT_EQ(r.rc, 2) << r.err;  // saved results hold no profile
    EXPECT_NE(r.err.find("--host-profile applies when compare runs"), std::string::npos) << r.err;
}

// Every line "test;frame;...;frame count", the test's name as the root.
KVM_TEST(HostProfile, FoldedStacksFormat) {
    TempDir d;
    auto file = d.file("cpuid.folded");
    auto r = run_cli({"run", "cpuid", "--no-baseline", "--no-save", "--sessions", "1", "--repeats", "2",
                      "--host-profile=4000", "--host-profile-folded", file});
    if (r.rc == 3 && r.err.find("perf_event") != std::string::npos) GTEST_SKIP() << "cannot sample here: " << r.err;
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("host profile: cpuid"), std::string::npos) << r.out;
    std::istringstream in(slurp(file));
    std::string line;
    const std::regex folded(R"(cpuid(;[^;\n]+)+ [1-9][0-9]*)");
    int lines = 0;
    while (std::getline(in, line)) {
        ++lines;
        EXPECT_TRUE(std::regex_match(line, folded)) << line;
    }
    EXPECT_GT(lines, 0);
}

} // namespace
