#include "lab/kselftest_collection.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>

#include "report/sanitize.h"
#include "sys/error.h"
#include "sys/file.h"
#include "sys/io.h"

namespace eb::lab {

namespace {

// `path` is a directory (following a link: a tree may be reached through one),
// made if `create` and absent.
void require_dir(const std::string& path, bool create) {
    struct stat st {};
    if (stat(path.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode)) throw InputError(fmt::format("{}: not a directory", path));
        return;
    }
    if (errno != ENOENT || !create) throw InputError(fmt::format("{}: {}", path, std::strerror(errno)));
    if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
        throw HostError(fmt::format("cannot make {}: {}", path, std::strerror(errno)));
}

// kselftest-list.txt with the collection's entry, and whether it was added.
std::pair<std::string, bool> with_entry(const std::string& list_path) {
    std::string text;
    struct stat st {};
    if (lstat(list_path.c_str(), &st) == 0) {
        try {
            text = sys::read_regular(list_path);
        } catch (const std::exception& e) {
            throw InputError(e.what());
        }
    }
    std::string entry = fmt::format("{}:{}", kKselftestCollection, kKselftestScript);
    size_t at = 0;
    while (at < text.size()) {
        size_t nl = text.find('\n', at);
        if (text.compare(at, (nl == std::string::npos ? text.size() : nl) - at, entry) == 0) return {text, false};
        at = nl == std::string::npos ? text.size() : nl + 1;
    }
    if (!text.empty() && text.back() != '\n') text += '\n';
    return {text + entry + "\n", true};
}

void write(const std::string& path, const std::string& text, mode_t mode) {
    try {
        sys::write_file(path, text, mode);
    } catch (const std::runtime_error& e) {
        throw HostError(e.what());
    }
}

} // namespace

std::string kselftest_script(const KselftestCollection& c) {
    std::string cmd = report::shell_word(c.binary) + " run --format ktap --no-save";
    for (const auto& a : c.run_args) cmd += " " + report::shell_word(a);
    return fmt::format("#!/bin/sh\n"
                       "# exitbench as a kselftest, written by `exitbench kselftest-install`: KTAP on stdout and\n"
                       "# kselftest's exit status (0 pass, 1 fail, 4 skip, as when /dev/kvm is missing).\n"
                       "exec {}\n", cmd);
}

KselftestInstalled install_kselftest(KselftestCollection c) {
    std::error_code ec;  // as boot does: the script must name this binary, not /proc/self/exe
    c.binary = std::filesystem::canonical(c.binary, ec).string();
    if (ec) throw HostError(fmt::format("cannot find this exitbench binary: {}", ec.message()));
    require_dir(c.dir, false);
    std::string sub = c.dir + "/" + kKselftestCollection;
    require_dir(sub, true);
    KselftestInstalled out{sub + "/" + kKselftestScript, sub + "/settings", c.dir + "/kselftest-list.txt"};
    auto [list, added] = with_entry(out.list);
    write(out.script, kselftest_script(c), 0755);
    write(out.settings, fmt::format("timeout={}\n", c.timeout_s), 0644);
    if (added) write(out.list, list, 0644);
    out.newly_listed = added;
    return out;
}

} // namespace eb::lab
