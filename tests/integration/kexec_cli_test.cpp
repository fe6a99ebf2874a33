// compare --backend kexec driven as a user would, on this host, with a
// kexec (and a systemctl) on PATH that only record their words: the plan
// starts, says where it stands, refuses a second plan, tries the kexec
// again on --resume in the same boot, and --abort leaves no unit and no
// state behind. Bad input is one line and a non-zero exit, and writes
// nothing. The real kexecs are in tests/nested/kexec_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_runner.h"
#include "tests/temp_dir.h"

namespace fs = std::filesystem;

namespace {

std::string read(const std::string& path) {
    std::ifstream f(path);
    return {std::istreambuf_iterator<char>(f), {}};
}

std::string a_kernel() {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/boot", ec))
        if (e.path().filename().string().starts_with("vmlinuz-")) return e.path().string();
    return "";
}

class KexecCli : public eb::test::TempDirTest {
protected:
    void SetUp() override {
        kernel_ = a_kernel();
        if (kernel_.empty()) GTEST_SKIP() << "no /boot/vmlinuz-* (install linux-image-amd64)";
        if (geteuid() != 0) GTEST_SKIP() << "--backend kexec needs root";
        fs::create_directories(temp_path("bin"));
        // Stand-ins that never kexec: each records its words; systemctl fails.
        for (const char* tool : {"kexec", "systemctl"}) {
            std::ofstream(temp_path(std::string("bin/") + tool))
                << "#!/bin/sh\necho \"" << tool << " $*\" >>" << temp_path("calls") << "\n"
                << (std::string(tool) == "systemctl" ? "exit 1\n" : "exit 0\n");
            fs::permissions(temp_path(std::string("bin/") + tool), fs::perms::owner_all);
        }
    }
    CliResult cli(std::vector<std::string> args, const std::string& path_env = "") {
        args.insert(args.end(), {"--db", temp_path("store/history.db"), "--unit-dir", temp_path("units")});
        CliOptions o;
        o.env = {"PATH=" + (path_env.empty() ? temp_path("bin") + ":/usr/sbin:/usr/bin:/sbin:/bin" : path_env)};
        return run_cli(args, o);
    }
    std::vector<std::string> start() {
        return {"compare", "--backend", "kexec", "--kernel-a", kernel_, "--kernel-b", kernel_, "--append-b",
                "spectre_bhi=off", "--boots", "2", "cpuid"};
    }
    bool nothing_written() {
        return !fs::exists(temp_path("store/kexec-plan.json")) && !fs::exists(temp_path("units"));
    }
    std::string kernel_;
};

TEST_F(KexecCli, APlanStartsSaysWhereItStandsAndAbortLeavesNoUnit) {
    auto r = cli(start());
    EXPECT_EQ(r.rc, 3) << r.err;  // the stand-in's kexec -e returned: no kexec happened
    EXPECT_NE(r.err.find("kexec into boot 1 of 4 (A: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("did not kexec"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("the plan is kept"), std::string::npos) << r.err;
    auto calls = read(temp_path("calls"));
    EXPECT_NE(calls.find("kexec -l " + fs::canonical(kernel_).string() + " --command-line="), std::string::npos) << calls;
    EXPECT_NE(calls.find("exitbench.plan="), std::string::npos) << calls;
    EXPECT_TRUE(fs::exists(temp_path("store/kexec-plan.json")));
    EXPECT_TRUE(fs::exists(temp_path("units/exitbench-kexec-plan.service")));
    EXPECT_TRUE(fs::is_symlink(temp_path("units/multi-user.target.wants/exitbench-kexec-plan.service")));

    auto s = cli({"compare", "--status"});
    EXPECT_EQ(s.rc, 0) << s.err;
    EXPECT_NE(s.out.find("boot 1 of 4: A 0 of 2, B 0 of 2 boots finished, 0 failed"), std::string::npos) << s.out;
    EXPECT_NE(s.out.find("next: A: "), std::string::npos) << s.out;
    EXPECT_NE(s.out.find("waiting for the kexec"), std::string::npos) << s.out;
    EXPECT_NE(s.out.find("(installed)"), std::string::npos) << s.out;

    auto again = cli(start());
    EXPECT_EQ(again.rc, 3);
    EXPECT_TRUE(one_line(again.err)) << again.err;
    EXPECT_NE(again.err.find("a kexec plan is already running"), std::string::npos) << again.err;

    // --resume in the boot that kexec'd: the kexec did not happen, so it is tried again.
    auto res = cli({"compare", "--resume"});
    EXPECT_EQ(res.rc, 3) << res.err;
    calls = read(temp_path("calls"));
    size_t loads = 0;
    for (size_t at = 0; (at = calls.find("kexec -l ", at)) != std::string::npos; ++at) ++loads;
    EXPECT_EQ(loads, 2u) << calls;

    auto a = cli({"compare", "--abort"});
    EXPECT_EQ(a.rc, 0) << a.err;
    EXPECT_NE(a.out.find("aborted: its unit and its state removed"), std::string::npos) << a.out;
    EXPECT_FALSE(fs::exists(temp_path("units/exitbench-kexec-plan.service")));
    EXPECT_FALSE(fs::is_symlink(temp_path("units/multi-user.target.wants/exitbench-kexec-plan.service")));
    EXPECT_FALSE(fs::exists(temp_path("units/multi-user.target.wants")));  // nothing of the unit left
    EXPECT_FALSE(fs::exists(temp_path("store/kexec-plan.json")));
    EXPECT_FALSE(fs::exists(temp_path("store/kexec-plan.d")));
    auto none = cli({"compare", "--status"});
    EXPECT_EQ(none.rc, 0);
    EXPECT_NE(none.out.find("no kexec plan"), std::string::npos) << none.out;
    auto twice = cli({"compare", "--abort"});
    EXPECT_EQ(twice.rc, 2);
    EXPECT_TRUE(one_line(twice.err)) << twice.err;
}

TEST_F(KexecCli, BadInputIsOneLineAndWritesNothing) {
    // No kexec on PATH.
    auto r = cli(start(), "/usr/bin:/bin");
    EXPECT_EQ(r.rc, 3);
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("install kexec-tools"), std::string::npos) << r.err;
    EXPECT_TRUE(nothing_written());
    // Not a bzImage, and no such file.
    std::ofstream(temp_path("notakernel")) << "not a kernel";
    auto args = start();
    args[4] = temp_path("notakernel");
    r = cli(args);
    EXPECT_EQ(r.rc, 2);
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("not a bzImage"), std::string::npos) << r.err;
    args[4] = temp_path("missing");
    r = cli(args);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("no such file"), std::string::npos) << r.err;
    EXPECT_TRUE(nothing_written());
    // QEMU's machine options do not apply.
    args = start();
    args.insert(args.end(), {"--accel", "tcg"});
    r = cli(args);
    EXPECT_EQ(r.rc, 2);
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_TRUE(nothing_written());
    auto no_calls = !fs::exists(temp_path("calls"));
    EXPECT_TRUE(no_calls) << read(temp_path("calls"));
}

TEST_F(KexecCli, NotRootIsOneLine) {
    if (!have_tool("setpriv")) GTEST_SKIP() << "no setpriv (util-linux) to drop root";
    fs::permissions(dir(), fs::perms::all);  // the unprivileged user reaches the kernel and the stand-ins
    fs::copy_file(kernel_, temp_path("vmlinuz"));
    fs::permissions(temp_path("vmlinuz"), fs::perms::all);
    auto args = start();
    args[4] = args[6] = temp_path("vmlinuz");
    args.insert(args.end(), {"--db", temp_path("store/history.db"), "--unit-dir", temp_path("units")});
    CliOptions o;
    o.env = {"PATH=" + temp_path("bin") + ":/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/tmp"};
    o.wrap = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
    auto r = run_cli(args, o);
    EXPECT_EQ(r.rc, 3) << r.err;
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("needs root"), std::string::npos) << r.err;
    EXPECT_TRUE(nothing_written());
}

} // namespace
