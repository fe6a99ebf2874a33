#include "lab/boot.h"

#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "lab/boot_outcome.h"
#include "sys/error.h"
#include "sys/file.h"
#include "sys/io.h"

namespace fs = std::filesystem;

namespace eb::lab {

namespace {

constexpr const char* kSvmCpu = "EPYC,+svm,+npt";  // what tests/nested boots: kvm_amd loads under TCG

std::string read_line(const std::string& path) {
    std::ifstream f(path);
    std::string s;
    std::getline(f, s);
    return s;
}

// --accel auto: KVM only where the host's KVM offers nested virtualization.
std::pair<bool, std::string> choose_accel(const std::string& accel) {
    if (accel == "tcg") return {false, "--accel tcg: QEMU TCG with an SVM CPU model (emulated)"};
    bool dev = access("/dev/kvm", R_OK | W_OK) == 0;
    std::string nested;
    for (const char* m : {"kvm_amd", "kvm_intel"})
        if (auto v = read_line(fmt::format("/sys/module/{}/parameters/nested", m)); !v.empty()) nested = m + ("=" + v);
    bool on = nested.ends_with("=1") || nested.ends_with("=Y");
    if (accel == "kvm") {
        if (!dev) throw HostError("--accel kvm: /dev/kvm cannot be opened for reading and writing here");
        return {true, "--accel kvm: -cpu host" + (on ? std::string() : " (the host's kvm_amd/kvm_intel do not say "
                                                                         "nested=1: the guest may have no SVM/VMX)")};
    }
    if (dev && on) return {true, fmt::format("--accel auto: KVM with -cpu host (hardware; the host's {} nested)", nested)};
    std::string why = !dev ? "no usable /dev/kvm"
                      : nested.empty() ? "neither kvm_amd nor kvm_intel is loaded on the host, so no nested "
                                         "virtualization"
                                       : "the host's " + nested + ": no nested virtualization";
    return {false, "--accel auto: QEMU TCG with an SVM CPU model (emulated: shape only, not hardware cost): " + why};
}

std::vector<std::string> guest_args(const std::vector<std::string>& args, bool& want_result) {
    std::vector<std::string> out = args.empty() ? std::vector<std::string>{"run"} : args;
    want_result = out[0] == "run";
    for (const auto& a : out)
        if (want_result && (a == "--json" || a.starts_with("--json=") || a == "--db" || a == "--no-save"))
            throw InputError(fmt::format("boot: '{}' is set by boot itself (the run's JSON comes back over "
                                         "virtio-serial; the host saves it)", a));
    if (want_result) out.insert(out.end(), {"--json", kGuestResult, "--no-save"});
    return out;
}

// QEMU's option syntax doubles a comma inside a value.
std::string qarg(const std::string& s) {
    std::string out;
    for (char c : s) out += c == ',' ? std::string(",,") : std::string(1, c);
    return out;
}

// A kernel with a PVH entry boots from its ELF vmlinux; TCG would spend
// about 5 s of every boot decompressing the bzImage's xz payload.
std::string pvh_vmlinux(const BootPlan& p, const std::string& dir) {
    std::string config = (fs::path(p.spec.kernel).parent_path() / ("config-" + p.release)).string();
    std::ifstream cfg(config);
    std::string line;
    bool pvh = false;
    while (std::getline(cfg, line)) pvh = pvh || line == "CONFIG_PVH=y";
    if (!pvh) return p.spec.kernel;
    std::string img;
    try {
        img = sys::read_regular(p.spec.kernel);
    } catch (const std::exception&) {
        return p.spec.kernel;
    }
    auto at = img.find(std::string("\xfd" "7zXZ\0", 6));
    if (at == std::string::npos) return p.spec.kernel;
    sys::write_file(dir + "/payload.xz", std::string_view(img).substr(at));
    auto end = sys::run_process({{"xz", "-dc", "--single-stream"}, dir + "/payload.xz", dir + "/vmlinux"}, 120, nullptr);
    std::error_code ec;
    fs::remove(dir + "/payload.xz", ec);
    if (!end.ok() || read_line(dir + "/vmlinux").rfind("\x7f" "ELF", 0) != 0) return p.spec.kernel;
    return dir + "/vmlinux";
}

} // namespace

std::string BootPlan::machine() const {
    return hardware ? "kvm -cpu host" : fmt::format("tcg -cpu {}", kSvmCpu);
}

BootPlan plan_boot(const BootSpec& spec) {
    BootPlan p;
    p.spec = spec;
    std::error_code ec;  // ldd of /proc/self/exe would read ldd's own shell
    p.spec.exitbench = fs::canonical(spec.exitbench, ec).string();
    if (ec) throw HostError(fmt::format("cannot find this exitbench binary ({}): {}", spec.exitbench, ec.message()));
    if (spec.kernel.empty()) throw InputError("boot needs --kernel IMAGE (a bzImage, e.g. /boot/vmlinuz-$(uname -r))");
    if (std::error_code ec; !fs::is_regular_file(spec.kernel, ec))
        throw InputError(fmt::format("--kernel {}: no such file", spec.kernel));
    p.release = kernel_release(spec.kernel);
    std::string dir = spec.modules_dir.empty() ? "/lib/modules/" + p.release : spec.modules_dir;
    p.modules = find_guest_modules(dir, p.release);
    p.params = parse_modprobe(spec.modprobe);
    if (!spec.initrd.empty()) sys::open_regular(spec.initrd);  // throws naming it
    if (spec.accel != "auto" && spec.accel != "kvm" && spec.accel != "tcg")
        throw InputError(fmt::format("--accel takes auto, kvm or tcg, not '{}'", spec.accel));
    if (spec.cpus < 1 || spec.cpus > 64) throw InputError("--cpus takes 1 to 64");
    if (spec.memory_mb < 256 || spec.memory_mb > 65536) throw InputError("--memory takes 256 to 65536 (MiB)");
    if (spec.append.find('\n') != std::string::npos) throw InputError("--append: a command line has no newline");
    for (const auto& f : spec.files)
        if (std::error_code ec; !fs::exists(f, ec) || (!fs::is_regular_file(f, ec) && !fs::is_directory(f, ec)))
            throw InputError(fmt::format("--add {}: no such file or folder", f));
    if (spec.exec && spec.args.empty()) throw InputError("boot --exec needs the command to run, after --");
    if (spec.exec || spec.raw_result) p.guest_args = spec.args;
    else p.guest_args = guest_args(spec.args, p.want_result);
    p.want_result = p.want_result || spec.raw_result;
    auto q = sys::find_program("qemu-system-x86_64");
    if (!q) throw HostError("no qemu-system-x86_64 on this host (install qemu-system-x86)");
    p.qemu = *q;
    std::tie(p.hardware, p.accel_why) = choose_accel(spec.accel);
    return p;
}

Booter::Booter(BootPlan plan) : plan_(std::move(plan)), dir_("exitbench-boot") {
    std::string ours = dir_.file("initramfs.cpio");
    InitramfsSpec init{plan_.spec.exitbench, plan_.modules, plan_.params, plan_.guest_args, plan_.want_result};
    init.files = plan_.spec.files;
    init.exec = plan_.spec.exec;
    build_initramfs(init, dir_.file("stage"), ours);
    std::error_code ec;
    fs::remove_all(dir_.file("stage"), ec);
    initrd_ = ours;
    if (!plan_.spec.initrd.empty()) {  // the user's first: the kernel unpacks both, ours last, so our /init wins
        std::string both = sys::read_regular(plan_.spec.initrd);
        both.resize((both.size() + 3) / 4 * 4, '\0');
        both += sys::read_regular(ours);
        initrd_ = dir_.file("initrd");
        sys::write_file(initrd_, both);
    }
    kernel_ = pvh_vmlinux(plan_, dir_.path());
}

BootOutcome Booter::boot(const std::atomic<bool>& interrupt) {
    const auto& s = plan_.spec;
    std::string run = dir_.file("boot");
    std::error_code ec;
    fs::remove_all(run, ec);
    if (fs::create_directories(run, ec); ec) throw HostError(fmt::format("cannot make {}: {}", run, ec.message()));
    std::vector<std::string> argv = {plan_.qemu};
    if (plan_.hardware) argv.insert(argv.end(), {"-accel", "kvm", "-cpu", "host"});
    else argv.insert(argv.end(), {"-accel", s.cpus > 1 ? "tcg,thread=single" : "tcg", "-cpu", kSvmCpu});
    // The user's command line last: its panic= or rdinit= wins over ours.
    std::string append = "console=ttyS0 panic=-1 quiet" + (s.append.empty() ? "" : " " + s.append);
    argv.insert(argv.end(), {"-m", std::to_string(s.memory_mb), "-smp", std::to_string(s.cpus), "-kernel", kernel_,
                             "-initrd", initrd_, "-append", append, "-display", "none", "-monitor", "none",
                             "-nodefaults", "-no-reboot", "-serial", "file:" + qarg(run + "/console"),
                             "-device", "virtio-serial-pci,id=vs"});
    for (const char* port : {kPortMeta, kPortOut, kPortErr, kPortResult}) {
        std::string id = std::string(port).substr(3);
        argv.insert(argv.end(), {"-chardev", fmt::format("file,id={},path={}", id, qarg(run + "/" + port)), "-device",
                                 fmt::format("virtserialport,bus=vs.0,chardev={},name={}", id, port)});
    }
    auto t0 = std::chrono::steady_clock::now();
    auto end = sys::run_process({argv, "/dev/null", run + "/qemu.out", run + "/qemu.err"}, s.timeout_s, &interrupt);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    auto out = read_outcome(plan_, run, end);
    out.seconds = secs;
    return out;
}

} // namespace eb::lab
