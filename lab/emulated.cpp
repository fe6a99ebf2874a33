#include "lab/emulated.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

#include "sys/error.h"
#include "sys/process.h"

namespace fs = std::filesystem;

namespace eb::lab {

namespace {

// "6.1.0-57-amd64" sorts before "6.1.0-9-amd64" as text: compare the
// numbers in the names as numbers, as sort -V does.
bool version_less(const std::string& a, const std::string& b) {
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (std::isdigit(uint8_t(a[i])) && std::isdigit(uint8_t(b[j]))) {
            size_t i2 = i, j2 = j;
            while (i2 < a.size() && std::isdigit(uint8_t(a[i2]))) ++i2;
            while (j2 < b.size() && std::isdigit(uint8_t(b[j2]))) ++j2;
            auto na = a.substr(i, i2 - i), nb = b.substr(j, j2 - j);
            if (na.size() != nb.size()) return na.size() < nb.size();
            if (na != nb) return na < nb;
            i = i2, j = j2;
        } else {
            if (a[i] != b[j]) return a[i] < b[j];
            ++i, ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

// A word as the shell would need it.
std::string shell_word(const std::string& w) {
    if (!w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@") ==
                          std::string::npos)
        return w;
    std::string q = "'";
    for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

} // namespace

std::string installed_kernel() {
    std::vector<std::string> releases;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/lib/modules", ec))
        if (fs::is_regular_file("/boot/vmlinuz-" + e.path().filename().string(), ec))
            releases.push_back(e.path().filename().string());
    if (releases.empty()) return "";
    return "/boot/vmlinuz-" + *std::max_element(releases.begin(), releases.end(), version_less);
}

std::string emulated_way(const std::vector<std::string>& argv) {
    std::string cmd = "exitbench";
    for (size_t i = 1; i < argv.size(); ++i) cmd += " " + shell_word(argv[i]);
    std::vector<std::string> missing;
    auto kernel = installed_kernel();
    if (kernel.empty()) missing.push_back("linux-image-amd64");
    if (!sys::find_program("qemu-system-x86_64")) missing.push_back("qemu-system-x86");
    std::string how = fmt::format("to run it emulated on this host: {} --emulated", cmd);
    if (!missing.empty())
        return fmt::format("{} (after apt-get install {}: it boots that kernel under QEMU TCG with an SVM CPU, "
                           "a real kvm_amd; emulated figures)", how, fmt::join(missing, " "));
    return fmt::format("{} (boots {} under QEMU TCG with an SVM CPU: a real kvm_amd; emulated figures)", how, kernel);
}

std::string emulation_kernel(const std::string& asked) {
    if (!asked.empty()) return asked;
    auto k = installed_kernel();
    if (k.empty())
        throw InputError("--emulated: no kernel to boot (no /boot/vmlinuz-V with /lib/modules/V): apt-get install "
                         "linux-image-amd64, or give --kernel IMAGE");
    return k;
}

} // namespace eb::lab
