#include "bench/common.h"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "sys/process.h"

namespace eb::bench {

Scratch::Scratch() {
    char dir[] = "/tmp/exitbench_bench_XXXXXX";
    if (::mkdtemp(dir)) dir_ = dir;
}

Scratch::~Scratch() {
    std::error_code ec;
    if (ok()) std::filesystem::remove_all(dir_, ec);
}

Command run_quiet(const std::vector<std::string>& argv, const std::string& cwd) {
    Command c;
    sys::Spawn s{argv};
    s.cwd = cwd;
    auto t0 = Clock::now();
    auto end = sys::run_process(s, 0, nullptr);
    c.wall_s = ms_since(t0) / 1e3;
    c.status = end.status();
    c.peak_mib = double(end.peak_rss_kb) / 1024;
    return c;
}

std::vector<std::string> words(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

std::optional<nlohmann::json> read_json(const std::string& path, std::string& why) {
    std::ifstream f(path);
    if (!f) {
        why = "no " + path;
        return std::nullopt;
    }
    try {
        return nlohmann::json::parse(f);
    } catch (const std::exception& e) {
        why = path + ": " + e.what();
        return std::nullopt;
    }
}

void print_ratio(std::string_view what, double ours, double floor, std::string_view unit) {
    fmt::print("  {:<44} {:9.3f} {:<6} floor {:9.3f}  ratio {:6.3f}x  ({:+.3f})\n", what, ours, unit, floor,
               ours / floor, ours - floor);
}

bool emulated() {
    const char* e = std::getenv("EB_BENCH_EMULATED");
    return e && *e == '1';
}

void print_verdict(std::string_view section, bool met, std::string_view figure, std::string_view goal) {
    fmt::print("  verdict, {}: {} — {} (goal {}){}\n", section, met ? "goal met" : "goal NOT met", figure, goal,
               emulated() ? "; emulated: shape only, not hardware cost" : "");
}

} // namespace eb::bench
