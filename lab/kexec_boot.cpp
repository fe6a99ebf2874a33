#include "lab/kexec_boot.h"
#include "lab/run.h"

#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "lab/initramfs.h"
#include "lab/kernel_ab.h"
#include "sys/error.h"
#include "sys/io.h"
#include "sys/process.h"

namespace fs = std::filesystem;

namespace eb::lab {

namespace {

std::string first_line(const std::string& path) {
    std::ifstream f(path);
    std::string s;
    std::getline(f, s);
    return s;
}

std::string last_line(const std::string& path) {
    std::ifstream f(path);
    std::string s, last;
    while (std::getline(f, s))
        if (!s.empty()) last = s;
    return last;
}

// Each image's initrd, as Debian installs it, unless one is given for both.
std::string side_initrd(const std::string& kernel, const std::string& release, const std::string& given) {
    if (!given.empty()) {
        sys::open_regular(given);  // throws naming it
        return fs::canonical(given).string();
    }
    auto beside = fs::path(kernel).parent_path() / ("initrd.img-" + release);
    std::error_code ec;
    return fs::is_regular_file(beside, ec) ? fs::canonical(beside).string() : "";
}

// --modprobe's parameters as the kernel takes them at the module's load: kvm_amd.avic=1.
std::string module_words(const std::vector<std::string>& modprobe) {
    std::string out;
    for (const auto& [mod, params] : parse_modprobe(modprobe)) {
        std::istringstream in(params);
        for (std::string w; in >> w;) out += (out.empty() ? "" : " ") + mod + "." + w;
    }
    return out;
}

std::string plan_id() { return fmt::format("{}-{}", utc_now("%Y%m%dT%H%M%SZ"), getpid()); }

} // namespace

std::string this_boot_id() { return first_line("/proc/sys/kernel/random/boot_id"); }
std::string this_cmdline() { return first_line("/proc/cmdline"); }

KexecPlan plan_kexec(const KexecSpec& spec) {
    KexecPlan p;
    std::string base = base_cmdline(first_line(spec.proc_cmdline));
    for (int s = 0; s < 2; ++s) {
        const auto& k = spec.kernel[s];
        if (std::error_code ec; k.empty() || !fs::is_regular_file(k, ec))
            throw InputError(fmt::format("--kernel-{} {}: no such file", s ? 'b' : 'a', k));
        auto& side = p.sides[s];
        side.release = kernel_release(k);  // throws for a non-bzImage
        side.kernel = fs::canonical(k).string();
        side.initrd = side_initrd(k, side.release, spec.initrd);
        if (spec.append[s].find('\n') != std::string::npos) throw InputError("--append: a command line has no newline");
        side.cmdline = add_params(add_params(base, spec.append[s]), module_words(spec.modprobe[s]));
    }
    if (!sys::find_program("kexec")) throw HostError("--backend kexec: no kexec on this host (install kexec-tools)");
    if (geteuid() != 0)
        throw HostError("--backend kexec needs root: kexec loads a kernel and the plan's unit goes into " +
                        spec.unit_dir);
    if (auto running = load_plan(plan_state_path(spec.db)); running && !running->done)
        throw HostError(fmt::format("a kexec plan is already running ({}, boot {} of {}): see compare --status, or "
                                    "end it with compare --abort", running->id, running->slot, running->order.size()));
    std::error_code ec;
    p.exitbench = fs::canonical(spec.exitbench, ec).string();
    if (ec) throw HostError(fmt::format("cannot find this exitbench binary ({}): {}", spec.exitbench, ec.message()));
    p.id = plan_id();
    p.label = spec.label, p.note = spec.note, p.db = spec.db, p.json = spec.json, p.unit_dir = spec.unit_dir;
    p.fail_pct = spec.fail_pct, p.alpha = spec.alpha;
    p.order = counterbalanced(spec.boots);
    p.run_args = spec.run_args;
    return p;
}

void kexec_next(KexecPlan& p, const std::string& state_path) {
    auto kexec = sys::find_program("kexec");
    if (!kexec) throw HostError("no kexec on this host any more (install kexec-tools); the plan waits: --abort ends it");
    std::string dir = plan_dir(p.db);
    std::error_code ec;
    fs::create_directories(dir, ec);
    p.launched_from = this_boot_id();
    save_plan(state_path, p);
    const auto& side = p.sides[p.order.at(p.slot - 1)];
    std::vector<std::string> load = {*kexec, "-l", side.kernel, "--command-line=" + slot_cmdline(p, p.slot)};
    if (!side.initrd.empty()) load.push_back("--initrd=" + side.initrd);
    auto end = sys::run_process({load, "/dev/null", dir + "/kexec.out", dir + "/kexec.err"}, 120, nullptr);
    if (!end.ok())
        throw HostError(fmt::format("kexec -l {} failed (exit {}): {}", side.kernel, end.code,
                                    last_line(dir + "/kexec.err")));
    ::sync();
    auto systemctl = sys::find_program("systemctl");
    bool systemd = systemctl && fs::is_directory("/run/systemd/system", ec);
    std::vector<std::string> exec = systemd ? std::vector<std::string>{*systemctl, "kexec"}
                                            : std::vector<std::string>{*kexec, "-e"};
    end = sys::run_process({exec, "/dev/null", dir + "/kexec.out", dir + "/kexec.err"}, 120, nullptr);
    if (systemd && end.ok()) return;  // systemd shuts down and kexecs; this process ends with it
    auto why = last_line(dir + "/kexec.err");
    throw HostError(fmt::format("{} {} did not kexec (exit {}{})", exec[0], exec[1], end.code, why.empty() ? "" : ": " + why));
}

KexecBoot measure_boot(const KexecPlan& p, const std::string& dir) {
    KexecBoot b;
    b.boot_id = this_boot_id();
    std::error_code ec;
    fs::create_directories(dir, ec);
    std::string stem = fmt::format("{}/boot-{}{}", dir, p.slot, p.retry ? "-retry" : "");
    std::vector<std::string> argv{p.exitbench};
    argv.insert(argv.end(), p.run_args.begin(), p.run_args.end());
    argv.insert(argv.end(), {"--json", stem + ".json", "--no-save"});
    fs::remove(stem + ".json", ec);
    auto end = sys::run_process({argv, "/dev/null", stem + ".out", stem + ".err"}, 6 * 3600, nullptr);
    if (!end.ok())
        b.failure = end.timed_out ? "the run timed out after 6 h"
                                  : fmt::format("the run failed (exit {}): {}", end.code, last_line(stem + ".err"));
    else if (!fs::is_regular_file(stem + ".json", ec))
        b.failure = "the run wrote no result";
    else
        b.result = stem + ".json";
    return b;
}

} // namespace eb::lab
