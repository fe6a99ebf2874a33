// compare --backend kexec for real, inside a QEMU guest: Debian's kernel
// booted with lab/initramfs's initramfs plus kexec-tools and 9p, the plan's
// state, units and store on a 9p share from the host (a kexec'd boot has a
// fresh root). The guest has no systemd, so its /init runs the ExecStart of
// the unit the plan generated, as systemd would: the entry point of every
// resumed boot. It kexecs between two command lines of one kernel; the
// plan's mechanics are asserted (the boots, their ids, the resumes, the
// unit gone at the end, --status, --abort). The runs inside need /dev/kvm
// in the guest, which this host may not give: the verdict is whatever they
// give, "not testable" included. Under TCG with an SVM CPU, as tests/nested.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

#include "../integration/cli_runner.h"
#include "lab/initramfs.h"
#include "lab/kexec_plan.h"
#include "sys/process.h"
#include "tests/paths.h"
#include "tests/temp_dir.h"

namespace fs = std::filesystem;
using namespace eb;

namespace {

std::string debian_kernel(std::string& release) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/boot", ec)) {
        auto name = e.path().filename().string();
        if (name.starts_with("vmlinuz-") && fs::exists("/lib/modules/" + name.substr(8) + "/modules.dep")) {
            release = name.substr(8);
            return e.path().string();
        }
    }
    return "";
}

std::string read(const std::string& path) {
    std::ifstream f(path);
    return {std::istreambuf_iterator<char>(f), {}};
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

// The guest's /init. Boot 0 starts the plan (START), each later boot runs
// the unit's ExecStart, or, from the ABORT_AT-th boot on, --status and
// --abort; every boot then writes --status and powers off.
const char* kInit = R"SH(#!/bin/busybox sh
/bin/busybox mkdir -p /sbin /usr/bin /usr/sbin /proc /sys /dev /tmp /root /share
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
for m in MODULES; do [ -d /sys/module/$m ] || insmod /modules/$m.ko; done
if grep -qw svm /proc/cpuinfo; then for m in KVM_AMD; do insmod /modules/$m.ko; done; fi
if grep -qw vmx /proc/cpuinfo; then for m in KVM_INTEL; do insmod /modules/$m.ko; done; fi
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=mmap eb /share || { echo "no 9p share"; poweroff -f; }
db=/share/db/history.db
log=/share/guest.log
echo "boot $(cat /proc/sys/kernel/random/boot_id) $(cat /proc/cmdline)" >>/share/boots
n=$(wc -l </share/boots)
if [ $n = 1 ]; then
  START >>$log 2>&1
  echo "start rc=$?" >>$log
elif [ -n "ABORT_AT" ] && [ $n -ge 0ABORT_AT ]; then
  exitbench compare --status --db $db >>/share/status-before-abort.txt 2>&1
  exitbench compare --abort --db $db >>$log 2>&1
  echo "abort rc=$?" >>$log
else
  cmd=$(sed -n 's/^ExecStart=//p' /share/units/exitbench-kexec-plan.service | tr -d '"')
  echo "resume: $cmd" >>$log
  $cmd >>$log 2>&1
  echo "resume rc=$?" >>$log
fi
exitbench compare --status --db $db >/share/status.txt 2>&1
sync
poweroff -f
)SH";

void replace(std::string& s, const std::string& from, const std::string& to) {
    for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), to);
}

std::string names(const std::vector<std::string>& chain) {
    std::string out;
    for (const auto& m : chain) out += (out.empty() ? "" : " ") + lab::module_name(m);
    return out;
}

class Kexec : public test::TempDirTest {
protected:
    void SetUp() override {
        kernel_ = debian_kernel(release_);
        if (!have_tool("qemu-system-x86_64")) GTEST_SKIP() << "no qemu-system-x86_64 (install qemu-system-x86)";
        if (!have_tool("kexec")) GTEST_SKIP() << "no kexec (install kexec-tools)";
        if (!have_tool("busybox")) GTEST_SKIP() << "no busybox (install busybox-static)";
        if (kernel_.empty()) GTEST_SKIP() << "no /boot/vmlinuz-V with /lib/modules/V (install linux-image-amd64)";
        share_ = temp_path("share");
        fs::create_directories(share_ + "/db");
    }

    // Boots the guest once; it kexecs as the plan goes, and powers off.
    void boot_guest(const std::string& start, const std::string& abort_at) {
        fs::copy_file(kernel_, share_ + "/vmlinuz");
        std::string dir = "/lib/modules/" + release_;
        auto mods = lab::find_guest_modules(dir, release_);
        std::vector<std::string> p9;
        for (const char* m : {"9pnet_virtio", "9p"})
            for (const auto& c : lab::module_chain(dir, release_, m)) p9.push_back(c);
        std::string init = kInit;
        auto base = mods.base;
        base.insert(base.end(), p9.begin(), p9.end());
        replace(init, "MODULES", names(base));
        replace(init, "KVM_AMD", names(mods.amd));
        replace(init, "KVM_INTEL", names(mods.intel));
        replace(init, "START", start);
        replace(init, "ABORT_AT", abort_at);
        lab::InitramfsSpec spec{test::exitbench_binary(), mods, {}, {}, false};
        spec.programs = {*sys::find_program("kexec")};
        spec.extra_modules = p9;
        spec.init = init;
        lab::build_initramfs(spec, temp_path("stage"), share_ + "/initrd.cpio");
        // TCG: a software KVM such as kvm_pvm emulates a guest kernel's CPL0 code, slower than TCG
        // (-cpu host even fails there); EXITBENCH_KEXEC_TEST_KVM=1 tries KVM first on real hardware.
        std::vector<bool> accels{false};
        if (getenv("EXITBENCH_KEXEC_TEST_KVM") && access("/dev/kvm", R_OK | W_OK) == 0) accels.insert(accels.begin(), true);
        for (bool kvm : accels) {
            std::vector<std::string> argv = {
                "qemu-system-x86_64", "-accel", kvm ? "kvm" : "tcg", "-cpu", kvm ? "host" : "EPYC,+svm,+npt", "-m",
                "1024", "-smp", "1", "-kernel", share_ + "/vmlinuz", "-initrd", share_ + "/initrd.cpio", "-append",
                "console=ttyS0 panic=-1 quiet", "-display", "none", "-monitor", "none", "-nodefaults", "-no-reboot",
                "-serial", "file:" + temp_path("console"),
                "-virtfs", "local,path=" + share_ + ",mount_tag=eb,security_model=none,id=eb"};
            auto end = sys::run_process({argv, "/dev/null", temp_path("qemu.out"), temp_path("qemu.err")}, 170, nullptr);
            accel_ = kvm ? "kvm" : "tcg";
            if (kvm && end.code != 0 && !fs::exists(share_ + "/boots")) continue;  // KVM would not start it
            ASSERT_FALSE(end.timed_out) << "the guest did not power off in 170 s; log:\n"
                                        << read(share_ + "/guest.log") << "\nconsole tail:\n" << tail(temp_path("console"));
            ASSERT_EQ(end.code, 0) << read(temp_path("qemu.err"));
            return;
        }
    }

    static std::string tail(const std::string& path) {
        auto t = read(path);
        return t.size() > 3000 ? t.substr(t.size() - 3000) : t;
    }

    // Each boot: its id and command line, as the guest's /init wrote them.
    std::vector<std::pair<std::string, std::string>> boots() {
        std::vector<std::pair<std::string, std::string>> out;
        for (const auto& l : lines(read(share_ + "/boots"))) {
            auto sp = l.find(' ', 5);
            out.emplace_back(l.substr(5, sp - 5), l.substr(sp + 1));
        }
        return out;
    }

    std::string start(unsigned n) const {
        return fmt::format("exitbench compare --backend kexec --kernel-a /share/vmlinuz --append-a eb.side=a "
                           "--kernel-b /share/vmlinuz --append-b eb.side=b --initrd /share/initrd.cpio --boots {} "
                           "--db /share/db/history.db --unit-dir /share/units --label kx cpuid -n 64 -r 3 "
                           "--sessions 1", n);
    }

    std::string kernel_, release_, share_, accel_;
};

TEST_F(Kexec, TwoCommandLinesBootedInTurnEachResumedByTheUnitsEntryPoint) {
    boot_guest(start(1), "");
    auto log = read(share_ + "/guest.log");
    auto b = boots();
    // Boot 0 started the plan; then boot 1 (A) and boot 2 (B), each retried once at most.
    ASSERT_GE(b.size(), 3u) << log << tail(temp_path("console"));
    ASSERT_LE(b.size(), 5u) << log;
    std::set<std::string> ids;
    for (const auto& [id, cmdline] : b) ids.insert(id);
    EXPECT_EQ(ids.size(), b.size()) << read(share_ + "/boots");  // every boot its own
    EXPECT_EQ(b[0].second.find("exitbench.plan="), std::string::npos);
    std::set<std::string> sides_seen;
    for (size_t i = 1; i < b.size(); ++i) {
        EXPECT_NE(b[i].second.find("exitbench.plan="), std::string::npos) << b[i].second;
        for (const char* side : {"eb.side=a", "eb.side=b"})
            if (b[i].second.find(side) != std::string::npos) sides_seen.insert(side);
    }
    EXPECT_EQ(sides_seen.size(), 2u) << read(share_ + "/boots");
    EXPECT_EQ(log.find("start rc="), std::string::npos) << log;  // boot 0's kexec happened: its exitbench never returned
    EXPECT_NE(log.find("kexec into boot 1 of 2 (A: vmlinuz 'eb.side=a')"), std::string::npos) << log;
    // Each later boot ran the generated unit's ExecStart: the one entry point.
    size_t resumes = 0;
    for (const auto& l : lines(log))
        if (l.starts_with("resume: ")) {
            ++resumes;
            EXPECT_EQ(l, "resume: /bin/exitbench compare --resume --db /share/db/history.db");
        }
    EXPECT_EQ(resumes, b.size() - 1) << log;
    EXPECT_NE(log.find("boot 1 of 2"), std::string::npos) << log;
    EXPECT_NE(log.find("boot 2 of 2"), std::string::npos) << log;
    // The end: the verdict given (a table, or "not testable" when the runs had no KVM), the unit gone.
    bool verdict = log.find("not testable") != std::string::npos || log.find("B: vmlinuz") != std::string::npos;
    EXPECT_TRUE(verdict) << log;
    EXPECT_EQ(log.find("disk I/O error"), std::string::npos) << log;  // the store on the share took every boot
    EXPECT_FALSE(lab::unit_installed(share_ + "/units")) << log;
    auto status = read(share_ + "/status.txt");
    EXPECT_NE(status.find("finished"), std::string::npos) << status;
    EXPECT_NE(status.find("(not installed)"), std::string::npos) << status;
    std::cout << "[ accel " << accel_ << " ]\n[ boots ]\n" << read(share_ + "/boots") << "[ guest log ]\n" << log
              << "[ status ]\n" << status;
}

TEST_F(Kexec, AbortMidPlanLeavesNoUnitAndNoState) {
    boot_guest(start(2), "3");  // boot 0 starts, boot 1 is measured, boot 2 aborts
    auto log = read(share_ + "/guest.log");
    auto b = boots();
    ASSERT_EQ(b.size(), 3u) << log << tail(temp_path("console"));
    auto before = read(share_ + "/status-before-abort.txt");
    EXPECT_NE(before.find(" of 4"), std::string::npos) << before;
    EXPECT_NE(before.find("(installed)"), std::string::npos) << before;
    EXPECT_NE(log.find("abort rc=0"), std::string::npos) << log;
    EXPECT_NE(log.find("aborted: its unit and its state removed"), std::string::npos) << log;
    EXPECT_FALSE(lab::unit_installed(share_ + "/units"));
    EXPECT_FALSE(fs::exists(share_ + "/units/multi-user.target.wants"));
    EXPECT_FALSE(fs::exists(share_ + "/db/kexec-plan.json"));
    EXPECT_NE(read(share_ + "/status.txt").find("no kexec plan"), std::string::npos);
    std::cout << "[ accel " << accel_ << " ]\n[ guest log ]\n" << log << "[ status before --abort ]\n" << before;
}

} // namespace
