#include "lab/module_host.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/error.h"
#include "sys/fd.h"
#include "sys/process.h"

namespace eb::lab {

namespace fs = std::filesystem;

namespace {

std::string first_line(const std::string& text) {
    auto s = text.substr(0, text.find('\n'));
    return s.empty() ? "no message" : s;
}

std::string read_trimmed(const std::string& path, bool& ok) {
    std::ifstream f(path);
    std::string s;
    ok = bool(f) && bool(std::getline(f, s));
    return s;
}

// Runs a module tool, its stderr kept for the one line a failure says.
void module_tool(const std::vector<std::string>& argv) {
    if (!sys::find_program(argv[0]))
        throw HostError(fmt::format("no {} on this host (install kmod)", argv[0]));
    sys::ScratchDir scratch("exitbench-module");
    auto end = sys::run_process({argv, "/dev/null", "/dev/null", scratch.file("err")}, 120, nullptr);
    if (end.ok()) return;
    std::ifstream f(scratch.file("err"));
    std::stringstream err;
    err << f.rdbuf();
    std::string words;
    for (const auto& a : argv) words += (words.empty() ? "" : " ") + a;
    throw HostError(fmt::format("{}: {} (exit {})", words, first_line(err.str()), end.status()));
}

class SystemModules : public ModuleHost {
public:
    explicit SystemModules(std::string sysfs) : root_(std::move(sysfs)) {}
    bool loaded(const std::string& m) const override { return fs::exists(dir(m) + "/initstate"); }
    bool builtin(const std::string& m) const override { return fs::is_directory(dir(m)) && !loaded(m); }
    ModuleParams params(const std::string& m) const override {
        ModuleParams out;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(dir(m) + "/parameters", ec)) {
            bool ok = false;
            auto v = read_trimmed(e.path(), ok);
            if (ok) out.emplace_back(e.path().filename().string(), v);
        }
        std::sort(out.begin(), out.end());
        return out;
    }
    std::set<std::string> known(const std::string& m) const override {
        std::set<std::string> out;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(dir(m) + "/parameters", ec)) out.insert(e.path().filename());
        if (sys::find_program("modinfo")) try {  // parameters sysfs does not show (mode 0)
                std::istringstream lines(sys::capture({"modinfo", "-p", m}, 30));
                for (std::string l; std::getline(lines, l);)
                    if (auto c = l.find(':'); c != std::string::npos && c > 0) out.insert(l.substr(0, c));
            } catch (const std::exception&) {  // no modinfo data: sysfs's list stands
            }
        return out;
    }
    bool writable(const std::string& m, const std::string& p) const override {
        struct stat st {};
        return ::stat((dir(m) + "/parameters/" + p).c_str(), &st) == 0 && (st.st_mode & S_IWUSR);
    }
    int refcount(const std::string& m) const override {
        bool ok = false;
        auto s = read_trimmed(dir(m) + "/refcnt", ok);
        char* end = nullptr;
        long v = ok ? std::strtol(s.c_str(), &end, 10) : -1;
        return ok && end && *end == 0 && !s.empty() ? int(v) : -1;
    }
    std::vector<std::string> holders(const std::string& m) const override {
        std::vector<std::string> out;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(dir(m) + "/holders", ec)) out.push_back(e.path().filename());
        std::sort(out.begin(), out.end());
        return out;
    }
    void write(const std::string& m, const std::string& p, const std::string& v) override {
        std::string path = dir(m) + "/parameters/" + p;
        sys::Fd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW));
        if (!fd.valid() || ::write(fd.get(), v.data(), v.size()) != ssize_t(v.size()))
            throw HostError(fmt::format("cannot set {}.{}={}: {}", m, p, v, std::strerror(errno)));
    }
    void unload(const std::string& m) override { module_tool({"rmmod", m}); }
    void load(const std::string& m, const std::vector<std::string>& params) override {
        std::vector<std::string> argv{"modprobe", m};
        argv.insert(argv.end(), params.begin(), params.end());
        module_tool(argv);
    }
    std::string new_load_id() override {
        bool ok = false;
        auto id = read_trimmed("/proc/sys/kernel/random/uuid", ok);
        if (!ok || id.empty()) throw HostError("cannot read /proc/sys/kernel/random/uuid for a load's id");
        return id;
    }

private:
    std::string dir(const std::string& m) const { return root_ + "/" + m; }
    std::string root_;
};

// "Y"/"N" for a boolean spelling, else empty.
std::string as_bool(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (s == "1" || s == "y" || s == "yes" || s == "on" || s == "true") return "Y";
    if (s == "0" || s == "n" || s == "no" || s == "off" || s == "false") return "N";
    return "";
}

} // namespace

std::string param_words(const ModuleParams& p) {
    std::string out;
    for (const auto& [k, v] : p) out += (out.empty() ? "" : " ") + k + "=" + v;
    return out;
}

std::unique_ptr<ModuleHost> system_modules(const std::string& sysfs) { return std::make_unique<SystemModules>(sysfs); }

bool reads_as(const std::string& asked, const std::string& shown) {
    if (asked == shown) return true;
    if (shown == "Y" || shown == "N") return as_bool(asked) == shown;
    char *ea = nullptr, *es = nullptr;
    errno = 0;
    long long a = std::strtoll(asked.c_str(), &ea, 0), s = std::strtoll(shown.c_str(), &es, 0);
    return errno == 0 && !asked.empty() && !shown.empty() && *ea == 0 && *es == 0 && a == s;
}

} // namespace eb::lab
