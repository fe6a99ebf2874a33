// The robustness table's option fuzz: every value-taking option of every
// command, as the command line defines it, given hostile values. The options
// are read from `exitbench completion bash`, which is generated from the
// CLI11 command tree: a new option, or options declared another way (a
// table), are walked without this file changing. Each invocation must end
// non-zero with one line (or a usage's exit), never by a signal.
#include <atomic>
#include <fmt/format.h>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "robustness.h"

using Args = std::vector<std::string>;

namespace eb::robust {

namespace {

struct Option {
    std::string command;  // "history list"
    std::string name;     // "--label"
};

// The completion's "'CMD|OPT')" cases: the options that take a value, per command.
std::vector<Option> value_options() {
    auto script = run_cli({"completion", "bash"}).out;
    std::vector<Option> out;
    std::regex re("\\n\\s+'([^'|]*)\\|(-[^']+)'\\)");
    for (std::sregex_iterator it(script.begin(), script.end(), re), end; it != end; ++it)
        out.push_back({(*it)[1], (*it)[2]});
    return out;
}

Args words(const std::string& s) {
    Args out;
    for (size_t at = 0; at < s.size();) {
        size_t sp = s.find(' ', at);
        if (sp == std::string::npos) sp = s.size();
        if (sp > at) out.push_back(s.substr(at, sp - at));
        at = sp + 1;
    }
    return out;
}

// Empty, huge, negative, NaN, not UTF-8, a number with trailing garbage, an
// overflowing exponent, and a control sequence.
const std::vector<std::string>& hostile_values() {
    static const std::vector<std::string> v{"",      std::string(70000, '9'), "-1", "nan", "\xff\xfe\xc3",
                                            "5x",    "1e999",                 "\x1b[2J"};
    return v;
}

} // namespace

Row option_fuzz_row(const std::string& dir) {
    Row row{"option fuzz (every option, from the CLI)"};
    auto options = value_options();
    std::set<std::string> commands;
    for (const auto& o : options) commands.insert(o.command);
    if (options.size() < 50 || commands.size() < 10) {
        ++row.wrong, row.why.push_back(fmt::format("only {} options of {} commands found in the completion script",
                                                   options.size(), commands.size()));
        return row;
    }
    // No KVM (the global --device is a null device), no default store (an
    // empty XDG_DATA_HOME folder of its own), and no positional: whatever a
    // value does, the command cannot go on to measure or save.
    std::vector<Args> cases;
    for (const auto& o : options)
        for (const auto& v : hostile_values()) {
            Args a{"--device", "/dev/null"};
            if (o.command.empty()) a = {};
            for (auto& w : words(o.command)) a.push_back(w);
            a.push_back(o.name);
            a.push_back(v);
            if (o.command.empty()) a.push_back("list");
            cases.push_back(std::move(a));
        }
    std::mutex m;
    std::atomic<size_t> next{0};
    std::atomic<size_t> ran{0};
    CliOptions opt;  // a refusal that hangs is killed, named and counted as a crash (tally)
    opt.timeout_s = 300;
    opt.env = {"XDG_DATA_HOME=" + dir + "/xdg", "TMPDIR=" + dir};
    auto worker = [&] {
        for (size_t i; (i = next++) < cases.size();) {
            auto r = run_cli(cases[i], opt);
            ++ran;
            std::lock_guard g(m);
            std::string what = fmt::format("{}", fmt::join(cases[i], " ")).substr(0, 120);
            // bisect-step stops the bisection (128) on its own bad input, where the others exit 2.
            bool bisect = std::find(cases[i].begin(), cases[i].end(), "bisect-step") != cases[i].end();
            tally(row, what, r, bisect ? std::vector<int>{125, 128} : std::vector<int>{1, 2, 3, 4, 5});
        }
    };
    std::vector<std::thread> pool;
    for (int t = 0; t < 4; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
    // The work is a count: every option of every command met every hostile
    // value (its speed is exitbench_bench's `refuse` section).
    row.note = fmt::format("{} options of {} commands x {} values: {} invocations", options.size(), commands.size(),
                           hostile_values().size(), ran.load());
    if (ran != cases.size())
        ++row.wrong, row.why.push_back(fmt::format("{} of {} invocations ran", ran.load(), cases.size()));
    return row;
}

} // namespace eb::robust
