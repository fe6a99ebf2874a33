#include "lab/initramfs.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sstream>

#include "sys/error.h"
#include "sys/file.h"
#include "sys/io.h"
#include "sys/process.h"

namespace fs = std::filesystem;

namespace eb::lab {

std::string kernel_release(const std::string& image) {
    std::ifstream f(image, std::ios::binary);
    if (!f) throw InputError(fmt::format("--kernel {}: cannot read it ({})", image, std::strerror(errno)));
    std::string head(0x8000, '\0');
    f.read(head.data(), std::streamsize(head.size()));
    head.resize(size_t(f.gcount()));
    auto u16 = [&](size_t at) { return unsigned(uint8_t(head[at])) | unsigned(uint8_t(head[at + 1])) << 8; };
    if (head.size() < 0x210 || head.compare(0x202, 4, "HdrS") != 0)
        throw InputError(fmt::format("--kernel {}: not a bzImage (no \"HdrS\" setup header at 0x202)", image));
    size_t at = 0x200 + u16(0x20e);
    if (u16(0x206) < 0x200 || u16(0x20e) == 0 || at >= head.size())
        throw InputError(fmt::format("--kernel {}: its setup header names no kernel version", image));
    std::string release;
    while (at < head.size() && head[at] && head[at] != ' ') release += head[at++];
    if (release.empty() || release.find('/') != std::string::npos || release.front() == '.')
        throw InputError(fmt::format("--kernel {}: unusable kernel version '{}' in its header", image, release));
    return release;
}

std::string module_name(const std::string& path) {
    std::string n = fs::path(path).filename().string();
    n = n.substr(0, n.find(".ko"));
    std::replace(n.begin(), n.end(), '-', '_');
    return n;
}

namespace {

struct DepTable {
    std::map<std::string, std::pair<std::string, std::vector<std::string>>> by_name;  // path, deps
    std::set<std::string> builtin;
};

DepTable read_deps(const std::string& dir, const std::string& release) {
    std::ifstream dep(dir + "/modules.dep");
    if (!dep)
        throw InputError(fmt::format("no KVM modules for kernel {}: {}/modules.dep not found (install its modules, "
                                     "or give --modules DIR)", release, dir));
    DepTable t;
    std::string line;
    while (std::getline(dep, line)) {
        auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::istringstream rest(line.substr(colon + 1));
        std::vector<std::string> deps;
        for (std::string d; rest >> d;) deps.push_back(d);
        std::string path = line.substr(0, colon);
        t.by_name[module_name(path)] = {path, deps};
    }
    std::ifstream bi(dir + "/modules.builtin");
    while (std::getline(bi, line)) t.builtin.insert(module_name(line));
    return t;
}

// The module and what it needs, in load order (modules.dep lists the
// needed ones nearest first); empty when it is built in.
std::vector<std::string> chain(const DepTable& t, const std::string& name, const std::string& dir) {
    auto it = t.by_name.find(name);
    if (it == t.by_name.end()) {
        if (t.builtin.count(name)) return {};
        throw InputError(fmt::format("no {} module in {} (modules.dep does not list it)", name, dir));
    }
    std::vector<std::string> out(it->second.second.rbegin(), it->second.second.rend());
    out.push_back(it->second.first);
    for (const auto& p : out)
        if (std::error_code ec; !fs::exists(dir + "/" + p, ec))
            throw InputError(fmt::format("{}/{}: listed in modules.dep but missing", dir, p));
    return out;
}

} // namespace

std::vector<std::string> module_chain(const std::string& dir, const std::string& release, const std::string& name) {
    return chain(read_deps(dir, release), name, dir);
}

GuestModules find_guest_modules(const std::string& dir, const std::string& release) {
    auto t = read_deps(dir, release);
    if (!t.by_name.count("kvm"))
        throw InputError(fmt::format("no KVM modules for kernel {} in {} (no kvm module)", release, dir));
    GuestModules m{dir, {}, {}, {}};
    for (const char* n : {"virtio_pci", "virtio_console"})
        for (auto& p : chain(t, n, dir))
            if (std::find(m.base.begin(), m.base.end(), p) == m.base.end()) m.base.push_back(p);
    m.amd = chain(t, "kvm_amd", dir);
    m.intel = chain(t, "kvm_intel", dir);
    return m;
}

std::map<std::string, std::string> parse_modprobe(const std::vector<std::string>& specs) {
    std::map<std::string, std::string> out;
    for (const auto& s : specs) {
        std::istringstream in(s);
        std::string name, word, params;
        in >> name;
        std::replace(name.begin(), name.end(), '-', '_');
        if (name != "kvm" && name != "kvm_amd" && name != "kvm_intel")
            throw InputError(fmt::format("--modprobe '{}': names kvm, kvm_amd or kvm_intel, then its parameters", s));
        while (in >> word) {
            if (word.find('=') == std::string::npos || word.find('\'') != std::string::npos || word.front() == '=')
                throw InputError(fmt::format("--modprobe '{}': '{}' is not NAME=VALUE", s, word));
            params += (params.empty() ? "" : " ") + word;
        }
        if (out.count(name)) throw InputError(fmt::format("--modprobe names {} twice", name));
        out[name] = params;
    }
    return out;
}

namespace {

std::string quote(const std::string& w) {
    std::string q = "'";
    for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// The file and, by ldd, the libraries and loader it links, at their paths.
void copy_with_libs(const std::string& from, const std::string& root, const std::string& to) {
    fs::create_directories(fs::path(root + to).parent_path());
    fs::copy_file(from, root + to, fs::copy_options::overwrite_existing);
    std::string deps;
    try {
        deps = sys::capture({"ldd", from});
    } catch (const HostError&) {
        return;  // a static binary: "not a dynamic executable"
    }
    std::istringstream in(deps);
    for (std::string line; std::getline(in, line);) {
        auto slash = line.find('/');
        if (slash == std::string::npos) continue;
        std::string lib = line.substr(slash, line.find(' ', slash) - slash);
        if (std::error_code ec; fs::exists(root + lib, ec)) continue;
        fs::create_directories(fs::path(root + lib).parent_path());
        fs::copy_file(fs::canonical(lib), root + lib);  // the file, not the symlink
    }
}

// A file or folder at its own path in the guest, every executable file in
// it with its libraries; a symlink given is copied as what it points to.
void copy_in(const std::string& path, const std::string& root) {
    std::string abs = fs::absolute(path).lexically_normal().string();
    auto one = [&](const fs::path& from, const std::string& to) {
        auto st = fs::status(from);
        bool exe = (st.permissions() & fs::perms::owner_exec) != fs::perms::none;
        if (exe) return copy_with_libs(from.string(), root, to);
        fs::create_directories(fs::path(root + to).parent_path());
        fs::copy_file(from, root + to, fs::copy_options::overwrite_existing);
    };
    if (!fs::is_directory(abs)) return one(abs, abs);
    fs::create_directories(root + abs);
    for (const auto& e : fs::recursive_directory_iterator(abs)) {
        std::string to = abs + "/" + fs::relative(e.path(), abs).string();
        if (e.is_directory()) fs::create_directories(root + to);
        else if (e.is_regular_file()) one(e.path(), to);
    }
}

// A compressed module is unpacked on the host: busybox's insmod takes a plain .ko.
void copy_module(const std::string& dir, const std::string& rel, const std::string& root) {
    std::string out = root + "/modules/" + module_name(rel) + ".ko";
    fs::create_directories(root + "/modules");
    std::string src = dir + "/" + rel;
    const char* tool = rel.ends_with(".xz") ? "xz" : rel.ends_with(".zst") ? "zstd" : rel.ends_with(".gz") ? "gzip" : nullptr;
    if (!tool) {
        fs::copy_file(src, out, fs::copy_options::overwrite_existing);
        return;
    }
    auto end = sys::run_process({{tool, "-dc"}, src, out, "/dev/null"}, 120, nullptr);
    if (!end.ok()) throw HostError(fmt::format("cannot unpack {} with {} (exit {})", src, tool, end.code));
}

std::string loads(const std::vector<std::string>& mods, const std::map<std::string, std::string>& params) {
    std::string out;
    for (const auto& m : mods) {
        std::string line = "load " + module_name(m);
        if (auto p = params.find(module_name(m)); p != params.end()) {
            std::istringstream words(p->second);
            for (std::string w; words >> w;) line += " " + quote(w);
        }
        out += line + "\n";
    }
    return out;
}

std::string init_script(const InitramfsSpec& s) {
    std::string args;
    for (const auto& a : s.args) args += " " + quote(a);
    std::string out = R"SH(#!/bin/busybox sh
/bin/busybox mkdir -p /sbin /usr/bin /usr/sbin /proc /sys /dev /tmp /root
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root EXITBENCH_GUEST=1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
say() { echo "@@exitbench-boot $*@@" >/dev/console; }
fail() { say "fail: $*"; [ -n "$meta" ] && echo "fail=$*" >&3; poweroff -f; sleep 30; }
load() {
  m=$1; shift
  [ -d /sys/module/$m ] && return
  insmod /modules/$m.ko "$@" 2>/tmp/insmod.err || fail "insmod $m $*: $(cat /tmp/insmod.err)"
}
port() {
  for d in /sys/class/virtio-ports/*; do
    [ "$(cat $d/name 2>/dev/null)" = "$1" ] && { echo /dev/${d##*/}; return; }
  done
}
)SH";
    out += loads(s.modules.base, {});
    out += fmt::format(R"SH(for i in $(seq 100); do meta=$(port {}); [ -c "$meta" ] && break; sleep 0.1; done
[ -c "$meta" ] || {{ meta=; fail "no virtio-serial port {} in the guest"; }}
exec 3>"$meta"
if grep -qw svm /proc/cpuinfo; then vendor=kvm_amd
elif grep -qw vmx /proc/cpuinfo; then vendor=kvm_intel
else fail "the guest CPU has neither SVM nor VMX, so KVM cannot run inside (no nested virtualization)"; fi
)SH", kPortMeta, kPortMeta);
    out += "if [ $vendor = kvm_amd ]; then\n";
    if (s.params.count("kvm_intel")) out += "  fail \"--modprobe names kvm_intel, but this guest's CPU loads kvm_amd\"\n";
    out += loads(s.modules.amd, s.params) + "else\n";
    if (s.params.count("kvm_amd")) out += "  fail \"--modprobe names kvm_amd, but this guest's CPU loads kvm_intel\"\n";
    out += loads(s.modules.intel, s.params) + "fi\n";
    out += fmt::format(R"SH([ -c /dev/kvm ] || fail "$vendor loaded, but the guest has no /dev/kvm"
# modprobe and rmmod work inside too (a module A/B reloads kvm_amd): the
# modules, already loaded in order, listed without their dependencies.
mkdir -p /lib/modules/$(uname -r)
for f in /modules/*.ko; do ln -sf $f /lib/modules/$(uname -r)/; echo "${{f##*/}}:"; done >/lib/modules/$(uname -r)/modules.dep
echo "release=$(uname -r)" >&3
echo "cmdline=$(cat /proc/cmdline)" >&3
echo "boot_id=$(cat /proc/sys/kernel/random/boot_id)" >&3
echo "vendor=$vendor" >&3
for m in kvm $vendor; do
  for f in /sys/module/$m/parameters/*; do [ -r "$f" ] && echo "param=$m.${{f##*/}}=$(cat $f)" >&3; done
done
dmesg -n 1
cd /tmp
say start
{}{} </dev/null >"$(port {})" 2>"$(port {})"
echo "rc=$?" >&3
)SH", s.exec ? "" : "/bin/exitbench", s.exec ? args.substr(1) : args, kPortOut, kPortErr);
    if (s.want_result) out += fmt::format("[ -f {0} ] && cat {0} >\"$(port {1})\"\n", kGuestResult, kPortResult);
    out += "echo end >&3\nexec 3>&-\npoweroff -f\nsleep 30\n";
    return out;
}

} // namespace

void build_initramfs(const InitramfsSpec& spec, const std::string& scratch, const std::string& out) {
    std::string root = scratch + "/root";
    try {
        fs::create_directories(root + "/bin");
        copy_with_libs(spec.exitbench, root, "/bin/exitbench");
        auto bb = sys::find_program("busybox");
        if (!bb) throw HostError("no busybox on this host (install busybox-static)");
        copy_with_libs(*bb, root, "/bin/busybox");
        for (const auto& p : spec.programs) copy_with_libs(p, root, "/usr/sbin/" + fs::path(p).filename().string());
        for (const auto& f : spec.files) copy_in(f, root);
        std::set<std::string> mods;
        for (const auto* list : {&spec.modules.base, &spec.modules.amd, &spec.modules.intel, &spec.extra_modules})
            mods.insert(list->begin(), list->end());
        for (const auto& m : mods) copy_module(spec.modules.dir, m, root);
        sys::write_file(root + "/init", spec.init.empty() ? init_script(spec) : spec.init, 0755);
    } catch (const fs::filesystem_error& e) {
        throw HostError(fmt::format("cannot assemble the initramfs: {}", e.what()));
    }
    std::string list = ".\n";
    for (const auto& e : fs::recursive_directory_iterator(root))
        list += fs::relative(e.path(), root).string() + "\n";
    sys::write_file(scratch + "/files", list);
    auto end = sys::run_process({{"cpio", "-o", "-H", "newc", "--quiet"}, scratch + "/files", out,
                                 scratch + "/cpio.err", root}, 120, nullptr);
    if (!end.ok()) throw HostError(fmt::format("cpio could not pack the initramfs (exit {}; is cpio installed?)", end.code));
}

} // namespace eb::lab
