// What every section of exitbench_bench shares: timing, a scratch directory,
// one `exitbench` command's JSON, and the figure/ratio/verdict lines.
#pragma once
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace eb::bench {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t0, Clock::time_point t1 = Clock::now()) {
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

// A private directory under /tmp, removed with everything in it.
class Scratch {
public:
    Scratch();
    ~Scratch();
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    bool ok() const { return !dir_.empty(); }
    std::string file(std::string_view name) const { return dir_ + "/" + std::string(name); }

private:
    std::string dir_;
};

// One shell command, its output discarded; its status and wall time.
struct Command {
    int status = -1;  // its exit status, 128 + the signal that ended it; 0 when it succeeded
    double wall_s = 0;
    double peak_mib = 0;  // its largest resident set
};
// Runs argv (no shell) with its output discarded, in `cwd` when given.
Command run_quiet(const std::vector<std::string>& argv, const std::string& cwd = {});
// Fixed benchmark arguments written as one string, split at spaces.
std::vector<std::string> words(const std::string& s);

// The JSON document at `path`, or nullopt (with `why` set) when it is missing or unreadable.
std::optional<nlohmann::json> read_json(const std::string& path, std::string& why);

// A figure against its floor or peer: "ours floor ratio (+diff)".
void print_ratio(std::string_view what, double ours, double floor, std::string_view unit);

// Whether the bench runs inside an emulated kvm_amd (EB_BENCH_EMULATED=1,
// set by ./dev bench without /dev/kvm): every verdict then says so.
bool emulated();

// The section's one-line verdict against its goal.
void print_verdict(std::string_view section, bool met, std::string_view figure, std::string_view goal);

} // namespace eb::bench
