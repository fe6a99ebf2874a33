#include "lab/boot_outcome.h"

#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <vector>

#include "result/json.h"

namespace eb::lab {

namespace {

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    std::string s = ss.str();
    std::erase(s, '\r');
    return s;
}

std::vector<std::string> lines(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

// The first line of `text` that holds `key`, from `key` on.
std::string find_line(const std::string& text, const std::string& key) {
    for (const auto& l : lines(text))
        if (auto at = l.find(key); at != std::string::npos) return l.substr(at);
    return "";
}

std::string last_line(const std::string& text) {
    auto ls = lines(text);
    while (!ls.empty() && ls.back().find_first_not_of(" \t") == std::string::npos) ls.pop_back();
    return ls.empty() ? "" : ls.back();
}

struct Meta {
    std::string fail, release, cmdline, boot_id;
    std::vector<std::pair<std::string, std::string>> params;
    int rc = -1;
    bool end = false;
};

Meta read_meta(const std::string& text) {
    Meta m;
    for (const auto& l : lines(text)) {
        auto eq = l.find('=');
        std::string k = l.substr(0, eq), v = eq == std::string::npos ? "" : l.substr(eq + 1);
        if (k == "fail") m.fail = v;
        else if (k == "release") m.release = v;
        else if (k == "cmdline") m.cmdline = v;
        else if (k == "boot_id") m.boot_id = v;
        else if (k == "rc") m.rc = std::atoi(v.c_str());
        else if (k == "end") m.end = true;
        else if (k == "param" && v.find('=') != std::string::npos)
            m.params.emplace_back(v.substr(0, v.find('=')), v.substr(v.find('=') + 1));
    }
    return m;
}

// Why the guest did not finish, from what it said, the console, and QEMU.
std::string why_failed(const Meta& m, const std::string& dir, const sys::ProcessEnd& q, double timeout_s) {
    if (!m.fail.empty()) return "in the guest: " + m.fail;
    std::string console = slurp(dir + "/console");
    if (auto p = find_line(console, "Kernel panic - not syncing"); !p.empty()) return "kernel panic: " + p;
    if (q.timed_out) return fmt::format("timed out after {:g} s (QEMU killed); console: {}", timeout_s, last_line(console));
    std::string qerr = last_line(slurp(dir + "/qemu.err"));
    std::string status = q.signal ? fmt::format("signal {}", q.signal) : fmt::format("exit {}", q.code);
    if (q.code != 0 && !qerr.empty()) return fmt::format("QEMU failed ({}): {}", status, qerr);
    if (console.find("@@exitbench-boot start@@") == std::string::npos)
        return fmt::format("the guest never reached exitbench (QEMU {}); console: {}", status, last_line(console));
    return fmt::format("the guest stopped before exitbench finished (QEMU {}); console: {}", status, last_line(console));
}

} // namespace

BootOutcome read_outcome(const BootPlan& plan, const std::string& dir, const sys::ProcessEnd& qemu) {
    BootOutcome out;
    out.interrupted = qemu.interrupted;
    auto meta = read_meta(slurp(dir + "/" + kPortMeta));
    out.boot_id = meta.boot_id;
    out.out = slurp(dir + "/" + kPortOut);
    out.err = slurp(dir + "/" + kPortErr);
    out.guest_rc = meta.rc;
    if (out.interrupted) {
        out.failure = "interrupted (QEMU killed)";
        return out;
    }
    if (!meta.end || !meta.fail.empty()) {
        out.failure = why_failed(meta, dir, qemu, plan.spec.timeout_s);
        return out;
    }
    if (!plan.want_result) return out;
    std::string json = slurp(dir + "/" + kPortResult);
    if (plan.spec.raw_result) {  // not a run's: the caller reads it
        out.result_json = std::move(json);
        return out;
    }
    auto first_err = find_line(out.err, "error");
    try {
        if (json.empty()) throw std::runtime_error("no result");
        out.report = result::from_json(nlohmann::json::parse(json));
    } catch (const std::exception& e) {
        out.failure = fmt::format("the run inside wrote no usable result (exit {}){}", meta.rc,
                                  first_err.empty() ? ": " + std::string(e.what()) : ": " + first_err);
        return out;
    }
    auto& rep = *out.report;
    rep.boot = suite::BootRecord{plan.spec.kernel, meta.release, meta.cmdline, meta.boot_id,
                                 plan.execution(), plan.machine(), meta.params};
    if (!plan.hardware)
        for (auto& t : rep.results) t.warnings.push_back(suite::kEmulatedNote);
    if (rep.interrupted) out.failure = "the run inside was interrupted";
    return out;
}

} // namespace eb::lab
