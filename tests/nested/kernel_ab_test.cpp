// Host-kernel A/B for real: Debian's kernel booted by exitbench itself under
// QEMU TCG with an SVM CPU (kvm_amd loads inside), one short cpuid run per
// boot. Eight boots of about 6 to 12 s each; skipped, saying why, where
// there is no qemu-system-x86_64 or /boot/vmlinuz-*.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "../integration/cli_runner.h"
#include "tests/temp_dir.h"

namespace {

std::string debian_kernel() {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/boot", ec)) {
        auto name = e.path().filename().string();
        if (name.starts_with("vmlinuz-") && std::filesystem::exists("/lib/modules/" + name.substr(8) + "/modules.dep"))
            return e.path().string();
    }
    return "";
}

const char* kGuestRun = "-n 64 -r 3 --sessions 1";

class KernelAb : public eb::test::TempDirTest {
protected:
    void SetUp() override {
        kernel_ = debian_kernel();
        if (!have_tool("qemu-system-x86_64")) GTEST_SKIP() << "no qemu-system-x86_64 (install qemu-system-x86)";
        if (kernel_.empty()) GTEST_SKIP() << "no /boot/vmlinuz-V with /lib/modules/V (install linux-image-amd64)";
    }
    CliResult cli(std::vector<std::string> args) {
        auto end = std::find(args.begin(), args.end(), "--");  // after --, words are the guest's
        args.insert(end, {"--db", temp_path("history.db")});
        CliOptions o;
        o.timeout_s = 600;
        o.env = {"TMPDIR=" + dir().string()};  // the scratch directories go with the test's
        return run_cli(args, o);
    }
    nlohmann::json json(const std::string& name) { return nlohmann::json::parse(std::ifstream(temp_path(name))); }
    std::string kernel_;
};

} // namespace

TEST_F(KernelAb, TwoCommandLinesTwoBootsASideTheBootIsTheUnit) {
    auto r = cli({"compare", "--kernel-a", kernel_, "--append-a", "mitigations=off", "--kernel-b", kernel_,
                  "--append-b", "mitigations=auto", "--boots", "2", "-n", "64", "-r", "3", "--sessions", "1", "--label", "ab",
                  "--json", temp_path("ab.json"), "cpuid"});
    ASSERT_EQ(r.rc, 0) << r.err;
    for (int i = 1; i <= 4; ++i) EXPECT_NE(r.err.find("boot " + std::to_string(i) + " of 4"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("saved the boots as label:ab/A and label:ab/B"), std::string::npos) << r.err;
    auto j = json("ab.json");
    EXPECT_EQ(j["unit"], "boot");
    ASSERT_EQ(j["boot_ids"].size(), 2u);
    std::set<std::string> ids;
    for (const auto& side : j["boot_ids"]) {
        EXPECT_EQ(side.size(), 2u);
        for (const auto& id : side) ids.insert(id.get<std::string>());
    }
    EXPECT_EQ(ids.size(), 4u) << j["boot_ids"].dump();
    EXPECT_NE(j["warnings"].dump().find("emulated: shape only, not hardware cost"), std::string::npos);
    // Each saved boot records the guest's own command line and kvm_amd.
    auto b = cli({"history", "export", "3", "--json"});  // saved A's two first, then B's
    ASSERT_EQ(b.rc, 0) << b.err;
    auto run = nlohmann::json::parse(b.out);
    EXPECT_NE(run["boot"]["cmdline"].get<std::string>().find("mitigations=auto"), std::string::npos) << run["boot"];
    EXPECT_EQ(run["boot"]["execution"], "emulated");
    EXPECT_EQ(run["boot"]["module_params"]["kvm_amd.nested"], "1");
    EXPECT_EQ(run["boot"]["boot_id"], run["provenance"]["boot_id"]);

    // One boot a side of this label's kernel against the two saved: not testable, 125 for git bisect.
    // The tests and run options as compare takes them (one grammar): no --guest-run needed.
    auto s = cli({"bisect-step", "--good", "ab/A", "--kernel", kernel_, "--boots", "1", "cpuid", "-n", "64", "-r", "3",
                  "--sessions", "1"});
    EXPECT_EQ(s.rc, 125) << s.err;
    EXPECT_NE(s.err.find("not testable"), std::string::npos) << s.err;
}

TEST_F(KernelAb, OneBootASideIsNotTestable) {
    auto r = cli({"compare", "--kernel-a", kernel_, "--kernel-b", kernel_, "--append-b", "mitigations=off", "--boots",
                  "1", "--guest-run", kGuestRun, "--no-save", "--json", temp_path("one.json"), "cpuid"});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto j = json("one.json");
    EXPECT_EQ(j["unit"], "boot");
    for (const auto& t : j["tests"]) EXPECT_EQ(t["vs_first"][0]["verdict"], "not testable") << t.dump();
    EXPECT_NE(r.out.find("not testable at the boot level (1 vs 1 boot)"), std::string::npos) << r.out;
}

TEST_F(KernelAb, APanickingKernelIsAFailedBootNamedAndRetried) {
    // rdinit=, not init=: with an initramfs the kernel runs its /init whatever init= says.
    auto r = cli({"boot", "--kernel", kernel_, "--append", "panic=1 rdinit=/nonexistent", "--no-save", "--", "run",
                  "cpuid"});
    EXPECT_EQ(r.rc, 3) << r.err;
    EXPECT_NE(r.err.find("failed after"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("kernel panic: Kernel panic - not syncing"), std::string::npos) << r.err;
}
