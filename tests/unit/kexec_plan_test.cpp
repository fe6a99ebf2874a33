// compare --backend kexec's pieces that need no kexec: the plan's state
// file, the command lines and their markers, how boots are recorded and
// retried, --status's figures, and the unit: generated, checked by
// systemd-analyze verify, installed and removed. The kexecs themselves are
// in tests/nested/kexec_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/wait.h>

#include "lab/kernel_ab.h"
#include "lab/kexec_boot.h"
#include "lab/kexec_plan.h"
#include "sys/error.h"
#include "sys/process.h"
#include "tests/paths.h"
#include "tests/temp_dir.h"

using namespace eb;
namespace fs = std::filesystem;

namespace {

lab::KexecPlan two_a_side(const test::TempDir& tmp) {
    lab::KexecPlan p;
    p.id = "20261204T120000Z-42";
    p.label = "ab";
    p.db = tmp.path("store/history.db");
    p.unit_dir = tmp.path("units");
    p.exitbench = test::exitbench_binary();
    p.sides[0] = {"/boot/vmlinuz-a", "/boot/initrd.img-a", "console=ttyS0 quiet", "6.1.0-a", "A: vmlinuz-a"};
    p.sides[1] = {"/boot/vmlinuz-a", "", "console=ttyS0 quiet spectre_bhi=off", "6.1.0-a", "B: vmlinuz-a 'spectre_bhi=off'"};
    p.order = lab::counterbalanced(2);
    p.run_args = {"run", "cpuid", "-n", "64"};
    p.fail_pct = 2.5;
    return p;
}

TEST(KexecPlan, TheStateComesBackAsItWasWritten) {
    test::TempDir tmp;
    auto p = two_a_side(tmp);
    lab::record_boot(p, {0, 0, false, "id-1", "", tmp.path("boot-1.json"), true});
    lab::record_boot(p, {0, 0, false, "id-2", "the run failed (exit 3): no /dev/kvm", ""});
    auto state = lab::plan_state_path(p.db);
    EXPECT_EQ(state, tmp.path("store/kexec-plan.json"));  // next to the history
    lab::save_plan(state, p);
    EXPECT_EQ(fs::status(state).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
    auto back = lab::load_plan(state);
    ASSERT_TRUE(back);
    EXPECT_EQ(lab::plan_to_json(*back), lab::plan_to_json(p));
    EXPECT_EQ(back->slot, 2u);
    EXPECT_TRUE(back->retry);
    ASSERT_TRUE(back->fail_pct);
    EXPECT_EQ(*back->fail_pct, 2.5);
    EXPECT_FALSE(lab::load_plan(tmp.path("store/none.json")));
}

TEST(KexecPlan, ABrokenStateIsInputErrorNamingIt) {
    test::TempDir tmp;
    std::ofstream(tmp.path("s.json")) << R"({"kexec_plan": 1, "id": "x"})";
    try {
        lab::load_plan(tmp.path("s.json"));
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(tmp.path("s.json")), std::string::npos) << e.what();
    }
    std::ofstream(tmp.path("t.json")) << "{}";
    EXPECT_THROW(lab::load_plan(tmp.path("t.json")), InputError);
}

TEST(KexecPlan, EachBootCarriesItsMarkerAmongTheKernelsParameters) {
    test::TempDir tmp;
    auto p = two_a_side(tmp);
    EXPECT_EQ(lab::slot_cmdline(p, 1), "console=ttyS0 quiet exitbench.plan=20261204T120000Z-42:1");
    EXPECT_EQ(lab::slot_cmdline(p, 2), "console=ttyS0 quiet spectre_bhi=off exitbench.plan=20261204T120000Z-42:2");
    EXPECT_EQ(lab::booted_slot(p, lab::slot_cmdline(p, 3)), 3u);
    EXPECT_FALSE(lab::booted_slot(p, "console=ttyS0 exitbench.plan=other:3"));  // another plan's boot
    EXPECT_FALSE(lab::booted_slot(p, "console=ttyS0"));
    // Past " -- " the words are init's: the added ones go before it.
    EXPECT_EQ(lab::add_params("ro quiet -- --init-arg", "kvm_amd.avic=1"), "ro quiet kvm_amd.avic=1 -- --init-arg");
    EXPECT_EQ(lab::add_params("-- x", "a=1"), "a=1 -- x");
    EXPECT_EQ(lab::add_params("", "a=1"), "a=1");
    EXPECT_EQ(lab::base_cmdline("BOOT_IMAGE=/vmlinuz-6.1 root=/dev/sda1 initrd=/x exitbench.plan=old:2 ro"),
              "root=/dev/sda1 ro");
}

TEST(KexecPlan, AFailedBootIsRetriedOnceThenItsSideIsOneShort) {
    test::TempDir tmp;
    auto p = two_a_side(tmp);  // A B B A
    lab::record_boot(p, {0, 0, false, "id-1", "", "r1"});
    EXPECT_EQ(p.slot, 2u);
    lab::record_boot(p, {0, 0, false, "id-2", "panic", ""});
    EXPECT_EQ(p.slot, 2u);
    EXPECT_TRUE(p.retry);
    lab::record_boot(p, {0, 0, false, "id-3", "panic again", ""});
    EXPECT_EQ(p.slot, 3u);
    EXPECT_FALSE(p.retry);
    ASSERT_EQ(p.short_sides.size(), 1u);
    EXPECT_EQ(p.short_sides[0], "B: one boot short: boot 2 of 4 failed twice (panic again)");
    lab::record_boot(p, {0, 0, false, "id-4", "", "r3"});
    auto s = lab::plan_status(p);
    EXPECT_EQ(s.slot, 4u);
    EXPECT_EQ(s.finished[0], 1u);
    EXPECT_EQ(s.finished[1], 1u);
    EXPECT_EQ(s.failed, 2u);
    EXPECT_EQ(s.next_side, 0);
    EXPECT_EQ(s.next_kernel, "/boot/vmlinuz-a");
    EXPECT_FALSE(p.finished());
    lab::record_boot(p, {0, 0, false, "id-5", "", "r4"});
    EXPECT_TRUE(p.finished());
    ASSERT_EQ(p.boots.size(), 5u);
    EXPECT_EQ(p.boots[2].slot, 2u);
    EXPECT_TRUE(p.boots[2].retry);
    EXPECT_EQ(p.boots[2].side, 1);
}

// systemd-analyze verify reads the generated text as systemd would: its
// syntax, its dependencies and that ExecStart's binary is executable.
TEST(KexecUnit, SystemdAnalyzeVerifiesTheGeneratedUnit) {
    if (!sys::find_program("systemd-analyze")) GTEST_SKIP() << "no systemd-analyze (install systemd)";
    test::TempDir tmp;
    auto p = two_a_side(tmp);
    p.db = tmp.path("my store/h%1$x.db");  // quoting and specifiers: a path systemd must read back as given
    auto text = lab::unit_text(p);
    EXPECT_NE(text.find("ExecStart=\"" + p.exitbench + "\" \"compare\" \"--resume\" \"--db\""), std::string::npos) << text;
    EXPECT_NE(text.find("%%1$$x.db"), std::string::npos) << text;
    std::string unit = tmp.path(lab::kUnitName);
    std::ofstream(unit) << text;
    auto end = sys::run_process({{"systemd-analyze", "verify", unit}, "/dev/null", tmp.path("out"), tmp.path("err")},
                                60, nullptr);
    std::ifstream err(tmp.path("err"));
    std::string why((std::istreambuf_iterator<char>(err)), {});
    EXPECT_TRUE(end.ok()) << why;
    EXPECT_EQ(why.find(lab::kUnitName), std::string::npos) << why;  // no complaint about our unit
    // And it can fail: a unit whose binary is gone does not verify.
    p.exitbench = tmp.path("gone/exitbench");
    std::ofstream(unit) << lab::unit_text(p);
    end = sys::run_process({{"systemd-analyze", "verify", unit}, "/dev/null", tmp.path("out"), tmp.path("err")}, 60,
                           nullptr);
    EXPECT_FALSE(end.ok());
}

TEST(KexecUnit, InstalledEnabledThenRemovedWithoutATrace) {
    test::TempDir tmp;
    auto p = two_a_side(tmp);
    EXPECT_FALSE(lab::unit_installed(p.unit_dir));
    lab::install_unit(p.unit_dir, lab::unit_text(p));
    EXPECT_TRUE(lab::unit_installed(p.unit_dir));
    auto link = p.unit_dir + "/multi-user.target.wants/" + lab::kUnitName;
    ASSERT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(fs::read_symlink(link), p.unit_dir + "/" + lab::kUnitName);
    EXPECT_TRUE(lab::remove_unit(p.unit_dir));
    EXPECT_FALSE(lab::unit_installed(p.unit_dir));
    EXPECT_FALSE(fs::is_symlink(link));
    EXPECT_FALSE(fs::exists(p.unit_dir + "/" + lab::kUnitName));
    EXPECT_FALSE(fs::exists(p.unit_dir + "/multi-user.target.wants"));  // it held only our link
    EXPECT_FALSE(lab::remove_unit(p.unit_dir));  // nothing left to remove
    // Another unit's link in the .wants folder stays, and so does the folder.
    lab::install_unit(p.unit_dir, lab::unit_text(p));
    fs::create_symlink("/dev/null", p.unit_dir + "/multi-user.target.wants/other.service");
    EXPECT_TRUE(lab::remove_unit(p.unit_dir));
    EXPECT_TRUE(fs::is_symlink(p.unit_dir + "/multi-user.target.wants/other.service"));
}

// Bad input before anything is written: the kernel first.
TEST(KexecSpecCheck, ANonBzImageOrMissingKernelIsInputError) {
    test::TempDir tmp;
    std::ofstream(tmp.path("notakernel")) << "hello";
    lab::KexecSpec s;
    s.kernel[0] = s.kernel[1] = tmp.path("notakernel");
    s.boots = 1;
    s.db = tmp.path("h.db");
    EXPECT_THROW(lab::plan_kexec(s), InputError);
    s.kernel[0] = tmp.path("missing");
    try {
        lab::plan_kexec(s);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(lab::plan_state_path(s.db)));
}

} // namespace
