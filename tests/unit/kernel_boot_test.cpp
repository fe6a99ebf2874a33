// exitbench boot's pieces that need no QEMU: the bzImage header, the module
// chains from modules.dep, --modprobe, the counterbalanced order, and how
// failed boots are retried and counted. The boots themselves are in
// tests/nested/kernel_ab_test.cpp.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <unistd.h>

#include "lab/initramfs.h"
#include "lab/kernel_ab.h"
#include "sys/error.h"
#include "sys/process.h"
#include "tests/temp_dir.h"

using namespace eb;

namespace {

// A file with a setup header: "HdrS" at 0x202, protocol 2.15, and the
// kernel_version pointer at 0x20e naming `version` (0x200 + ptr).
std::string fake_bzimage(const test::TempDir& tmp, const std::string& version, bool magic = true) {
    std::string img(0x1000, '\0');
    if (magic) img.replace(0x202, 4, "HdrS");
    img[0x206] = 0x0f;
    img[0x207] = 0x02;
    img[0x20e] = 0x00;
    img[0x20f] = 0x06;  // 0x600: the string at 0x800
    img.replace(0x800, version.size(), version);
    std::string path = tmp.path("vmlinuz");
    std::ofstream(path, std::ios::binary) << img;
    return path;
}

void write(const std::string& path, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << text;
}

} // namespace

TEST(KernelBoot, TheReleaseComesFromTheSetupHeader) {
    test::TempDir tmp;
    EXPECT_EQ(lab::kernel_release(fake_bzimage(tmp, "6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP")),
              "6.1.0-57-amd64");
}

TEST(KernelBoot, AFileWithoutTheMagicIsNotABzImage) {
    test::TempDir tmp;
    try {
        lab::kernel_release(fake_bzimage(tmp, "6.1.0", false));
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("not a bzImage"), std::string::npos) << e.what();
    }
    write(tmp.path("short"), "tiny");
    EXPECT_THROW(lab::kernel_release(tmp.path("short")), InputError);
    EXPECT_THROW(lab::kernel_release(tmp.path("absent")), InputError);
}

TEST(KernelBoot, ModulesLoadInDependencyOrder) {
    test::TempDir tmp;
    std::string d = tmp.path("mods");
    write(d + "/modules.dep", "kernel/kvm.ko: kernel/irqbypass.ko\n"
                              "kernel/kvm-amd.ko: kernel/ccp.ko kernel/kvm.ko kernel/irqbypass.ko\n"
                              "kernel/kvm-intel.ko: kernel/kvm.ko kernel/irqbypass.ko\n"
                              "kernel/irqbypass.ko:\nkernel/ccp.ko:\n"
                              "kernel/virtio_console.ko.xz: kernel/virtio_ring.ko kernel/virtio.ko\n");
    write(d + "/modules.builtin", "kernel/drivers/virtio/virtio_pci.ko\n");
    for (const char* f : {"kvm.ko", "kvm-amd.ko", "kvm-intel.ko", "irqbypass.ko", "ccp.ko", "virtio_console.ko.xz",
                          "virtio_ring.ko", "virtio.ko"})
        write(d + "/kernel/" + f, "");
    auto m = lab::find_guest_modules(d, "9.9");
    EXPECT_EQ(m.amd, (std::vector<std::string>{"kernel/irqbypass.ko", "kernel/kvm.ko", "kernel/ccp.ko", "kernel/kvm-amd.ko"}));
    EXPECT_EQ(m.intel.back(), "kernel/kvm-intel.ko");
    // virtio_pci is built in: nothing to load for it.
    EXPECT_EQ(m.base, (std::vector<std::string>{"kernel/virtio.ko", "kernel/virtio_ring.ko", "kernel/virtio_console.ko.xz"}));
    std::filesystem::remove(d + "/kernel/ccp.ko");
    EXPECT_THROW(lab::find_guest_modules(d, "9.9"), InputError);  // listed but missing
}

TEST(KernelBoot, NoModuleTreeIsNoKvmModules) {
    test::TempDir tmp;
    try {
        lab::find_guest_modules(tmp.path("none"), "9.9");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("no KVM modules for kernel 9.9"), std::string::npos) << e.what();
    }
}

TEST(KernelBoot, ModprobeTakesOneKvmModuleAndItsParameters) {
    auto p = lab::parse_modprobe({"kvm_amd nested=1 avic=1", "kvm halt_poll_ns=0"});
    EXPECT_EQ(p.at("kvm_amd"), "nested=1 avic=1");
    EXPECT_EQ(p.at("kvm"), "halt_poll_ns=0");
    EXPECT_EQ(lab::parse_modprobe({"kvm-intel ept=0"}).at("kvm_intel"), "ept=0");
    EXPECT_THROW(lab::parse_modprobe({"e1000 x=1"}), InputError);
    EXPECT_THROW(lab::parse_modprobe({"kvm_amd nested"}), InputError);
    EXPECT_THROW(lab::parse_modprobe({"kvm_amd a='1'"}), InputError);
    EXPECT_THROW(lab::parse_modprobe({"kvm_amd a=1", "kvm_amd b=1"}), InputError);
}

// boot --add and --exec: the files at their own paths (a folder whole, a
// program with its libraries), and /init running the command in place of
// exitbench. The archive is read back with cpio.
TEST(KernelBoot, AddedFilesKeepTheirPathsAndExecRunsTheCommand) {
    if (!sys::find_program("busybox") || !sys::find_program("cpio")) GTEST_SKIP() << "no busybox or cpio here";
    test::TempDir tmp;
    std::string d = tmp.path("mods");
    write(d + "/modules.dep", "kernel/kvm.ko:\nkernel/kvm-amd.ko: kernel/kvm.ko\nkernel/kvm-intel.ko: kernel/kvm.ko\n");
    for (const char* f : {"kvm.ko", "kvm-amd.ko", "kvm-intel.ko"}) write(d + "/kernel/" + f, "");
    write(d + "/modules.builtin", "kernel/virtio_pci.ko\nkernel/virtio_console.ko\n");
    write(tmp.path("data/sub/a.txt"), "a");
    lab::InitramfsSpec spec{"/bin/true", lab::find_guest_modules(d, "9.9"), {}, {"/usr/bin/env", "X=it's"}, false};
    spec.files = {tmp.path("data"), "/bin/sh"};
    spec.exec = true;
    lab::build_initramfs(spec, tmp.path("stage"), tmp.path("initrd"));
    auto listed = sys::capture({"sh", "-c", "cpio -it --quiet < " + tmp.path("initrd")});
    EXPECT_NE(listed.find(tmp.path("data/sub/a.txt").substr(1) + "\n"), std::string::npos) << listed;
    EXPECT_NE(listed.find("bin/sh\n"), std::string::npos) << listed;
    EXPECT_NE(listed.find("lib/x86_64-linux-gnu/libc.so.6\n"), std::string::npos) << "the program's libraries: " << listed;
    std::ifstream init(tmp.path("stage/root/init"));
    std::string text((std::istreambuf_iterator<char>(init)), {});
    EXPECT_NE(text.find("\n'/usr/bin/env' 'X=it'\\''s' </dev/null"), std::string::npos) << text;
    EXPECT_EQ(text.find("/bin/exitbench '"), std::string::npos) << "--exec runs the command, not exitbench: " << text;
}

TEST(KernelBoot, TheOrderIsCounterbalanced) {
    EXPECT_EQ(lab::counterbalanced(3), (std::vector<int>{0, 1, 1, 0, 0, 1}));
    EXPECT_EQ(lab::counterbalanced(1), (std::vector<int>{0, 1}));
    auto o = lab::counterbalanced(4);
    EXPECT_EQ(std::count(o.begin(), o.end(), 0), 4);
}

TEST(KernelBoot, AFailedBootIsRetriedOnceThenItsSideIsOneShort) {
    int calls = 0;
    // Boot 2 (side B) fails twice; boot 3 (side B) fails once, then succeeds.
    auto boot = [&](int side) {
        ++calls;
        lab::BootOutcome o;
        o.boot_id = "boot-" + std::to_string(calls);
        if (calls == 2 || calls == 3 || calls == 4) o.failure = "kernel panic: test";
        else o.report = suite::RunReport{};
        (void)side;
        return o;
    };
    std::atomic<bool> stop{false};
    auto runs = lab::run_boots(lab::counterbalanced(2), boot, stop);
    EXPECT_EQ(calls, 6);
    EXPECT_EQ(runs.sides[0].size(), 2u);
    EXPECT_EQ(runs.sides[1].size(), 1u);
    ASSERT_EQ(runs.short_sides.size(), 1u);
    EXPECT_NE(runs.short_sides[0].find("B: one boot short: boot 2 of 4 failed twice"), std::string::npos)
        << runs.short_sides[0];
    ASSERT_EQ(runs.attempts.size(), 6u);
    EXPECT_TRUE(runs.attempts[2].retry);
    EXPECT_EQ(runs.attempts[3].slot, 3u);
}

TEST(KernelBoot, AnInterruptKeepsTheFinishedBoots) {
    std::atomic<bool> stop{false};
    int calls = 0;
    auto runs = lab::run_boots(lab::counterbalanced(3), [&](int) {
        lab::BootOutcome o;
        o.report = suite::RunReport{};
        if (++calls == 2) stop = true;
        return o;
    }, stop);
    EXPECT_TRUE(runs.interrupted);
    EXPECT_EQ(runs.sides[0].size() + runs.sides[1].size(), 2u);
}

TEST(Process, ATimeoutKillsTheChildAndItsGroup) {
    test::TempDir tmp;
    std::string pidfile = tmp.path("pid");
    auto end = sys::run_process({{"sh", "-c", "sleep 30 & echo $! > " + pidfile + "; wait"}}, 0.5, nullptr);
    EXPECT_TRUE(end.timed_out);
    EXPECT_FALSE(end.ok());
    int pid = 0;
    std::ifstream(pidfile) >> pid;
    ASSERT_GT(pid, 0);
    // Killed, it is gone or a zombie until whoever inherited it reaps it.
    std::string state;
    for (int i = 0; i < 20; ++i) {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string line;
        std::getline(stat, line);
        state = line.empty() ? "gone" : line.substr(line.rfind(')') + 2, 1);
        if (state == "gone" || state == "Z") break;
        usleep(50000);
    }
    EXPECT_TRUE(state == "gone" || state == "Z") << "the child's own child outlived it: state " << state;
    EXPECT_EQ(sys::capture({"sh", "-c", "echo hi"}), "hi\n");
    EXPECT_THROW(sys::capture({"sh", "-c", "echo no >&2; exit 3"}), HostError);
    EXPECT_EQ(sys::run_process({{"/nonexistent-program"}}, 5, nullptr).code, 127);
}
