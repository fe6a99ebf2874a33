// The initramfs `exitbench boot` assembles: this exitbench binary and the
// libraries it links, busybox, the kernel's KVM and virtio-serial modules,
// and an /init that loads them and runs exitbench, bringing its result back
// over virtio-serial ports (lab/boot.h).
#pragma once
#include <map>
#include <string>
#include <vector>

namespace eb::lab {

// A bzImage's release, read from its setup header: the "HdrS" magic at
// 0x202 and the kernel_version string. Throws InputError naming the file.
std::string kernel_release(const std::string& image);

// The modules to load in the guest, in load order, each a path in `dir`
// (a /lib/modules/RELEASE tree, with modules.dep). `vendor` is kvm_amd's
// and kvm_intel's chain (both: the guest CPU picks one), `base` the
// virtio-serial chain. Throws InputError when a module is missing.
struct GuestModules {
    std::string dir;
    std::vector<std::string> base, amd, intel;  // relative paths, deps first
};
GuestModules find_guest_modules(const std::string& dir, const std::string& release);

// One module and what it needs, in load order, relative to `dir`; empty
// when it is built in. Throws InputError when it is missing.
std::vector<std::string> module_chain(const std::string& dir, const std::string& release, const std::string& name);
// "kvm_amd" from "kernel/arch/x86/kvm/kvm-amd.ko.xz": the name it has in
// the initramfs's /modules (NAME.ko).
std::string module_name(const std::string& path);

// "kvm_amd nested=1 avic=1": module name to its parameters, from --modprobe
// words; only kvm, kvm_amd and kvm_intel take parameters here.
std::map<std::string, std::string> parse_modprobe(const std::vector<std::string>& specs);

struct InitramfsSpec {
    std::string exitbench;  // the binary copied in as /bin/exitbench
    GuestModules modules;
    std::map<std::string, std::string> params;  // parse_modprobe
    std::vector<std::string> args;              // exitbench's, inside
    bool want_result = false;                   // args is a run: bring its JSON back
    // For a guest of another purpose (tests/nested/kexec_test.cpp): more
    // programs, copied with their libraries into /usr/sbin, more modules,
    // and its own /init instead of the one that runs `args`.
    std::vector<std::string> programs = {}, extra_modules = {};
    std::string init = {};
    // Copied in at their own paths, folders whole, each executable file with
    // its libraries (boot --add); `exec`: args is the command /init runs in
    // place of /bin/exitbench (boot --exec).
    std::vector<std::string> files = {};
    bool exec = false;
};

// Writes the archive (cpio newc, uncompressed: gunzip under TCG costs more
// than the bytes) to `out`, staging in `scratch`. Throws HostError.
void build_initramfs(const InitramfsSpec& spec, const std::string& scratch, const std::string& out);

// The virtio-serial ports /init writes to, by name.
inline constexpr const char* kPortMeta = "eb.meta", *kPortOut = "eb.out", *kPortErr = "eb.err",
                             *kPortResult = "eb.result";
// Where the guest's run leaves its JSON before /init sends it.
inline constexpr const char* kGuestResult = "/tmp/eb-result.json";

} // namespace eb::lab
