#include "lab/kexec_plan.h"

#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sys/error.h"
#include "sys/file.h"
#include "sys/io.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace eb::lab {

std::string plan_state_path(const std::string& db_file) {
    return (fs::path(db_file).parent_path() / "kexec-plan.json").string();
}

std::string plan_dir(const std::string& db_file) {
    return (fs::path(db_file).parent_path() / "kexec-plan.d").string();
}

namespace {

json side_json(const KexecSide& s) {
    return {{"kernel", s.kernel}, {"initrd", s.initrd}, {"cmdline", s.cmdline}, {"release", s.release}, {"name", s.name}};
}

KexecSide side_from(const json& j) {
    return {j.at("kernel"), j.at("initrd"), j.at("cmdline"), j.at("release"), j.at("name")};
}

} // namespace

std::string plan_to_json(const KexecPlan& p) {
    json boots = json::array();
    for (const auto& b : p.boots)
        boots.push_back({{"slot", b.slot}, {"side", b.side}, {"retry", b.retry}, {"boot_id", b.boot_id},
                         {"failure", b.failure}, {"result", b.result}, {"saved", b.saved}});
    json j = {{"kexec_plan", 1},   {"id", p.id},           {"label", p.label},       {"note", p.note},
              {"db", p.db},        {"unit_dir", p.unit_dir}, {"exitbench", p.exitbench}, {"json", p.json},
              {"alpha", p.alpha},  {"sides", {side_json(p.sides[0]), side_json(p.sides[1])}},
              {"order", p.order},  {"run_args", p.run_args}, {"slot", p.slot},         {"retry", p.retry},
              {"launched_from", p.launched_from}, {"boots", boots}, {"short_sides", p.short_sides},
              {"done", p.done}};
    j["fail_if_slower"] = p.fail_pct ? json(*p.fail_pct) : json(nullptr);
    return j.dump(2) + "\n";
}

KexecPlan plan_from_json(const std::string& text, const std::string& path) {
    try {
        auto j = json::parse(text);
        if (j.value("kexec_plan", 0) != 1) throw InputError("not a kexec plan state (no \"kexec_plan\": 1)");
        KexecPlan p;
        p.id = j.at("id"), p.label = j.at("label"), p.note = j.at("note"), p.db = j.at("db");
        p.unit_dir = j.at("unit_dir"), p.exitbench = j.at("exitbench"), p.json = j.at("json");
        p.alpha = j.at("alpha");
        if (!j.at("fail_if_slower").is_null()) p.fail_pct = j.at("fail_if_slower").get<double>();
        p.sides[0] = side_from(j.at("sides").at(0));
        p.sides[1] = side_from(j.at("sides").at(1));
        p.order = j.at("order").get<std::vector<int>>();
        p.run_args = j.at("run_args").get<std::vector<std::string>>();
        p.slot = j.at("slot"), p.retry = j.at("retry"), p.launched_from = j.at("launched_from");
        for (const auto& b : j.at("boots"))
            p.boots.push_back({b.at("slot"), b.at("side"), b.at("retry"), b.at("boot_id"), b.at("failure"), b.at("result"),
                               b.at("saved")});
        p.short_sides = j.at("short_sides").get<std::vector<std::string>>();
        p.done = j.at("done");
        for (int s : p.order)
            if (s != 0 && s != 1) throw InputError("a side in \"order\" is neither 0 nor 1");
        if (p.order.empty() || p.slot < 1 || p.slot > p.order.size() + 1) throw InputError("\"slot\" is out of range");
        return p;
    } catch (const InputError& e) {
        throw InputError(fmt::format("kexec plan state {}: {}", path, e.what()));
    } catch (const json::exception& e) {
        throw InputError(fmt::format("kexec plan state {}: {}", path, e.what()));
    }
}

std::optional<KexecPlan> load_plan(const std::string& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return std::nullopt;
    return plan_from_json(sys::read_regular(path), path);
}

void save_plan(const std::string& path, const KexecPlan& p) {
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    sys::write_file(path, plan_to_json(p), 0600);
}

std::string slot_marker(const KexecPlan& p, unsigned slot) { return fmt::format("exitbench.plan={}:{}", p.id, slot); }

std::string add_params(const std::string& cmdline, const std::string& words) {
    if (words.empty()) return cmdline;
    std::string padded = " " + cmdline + " ";
    auto at = padded.find(" -- ");
    if (at == std::string::npos) return cmdline.empty() ? words : cmdline + " " + words;
    std::string kernel = cmdline.substr(0, at > 0 ? at - 1 : 0);
    return (kernel.empty() ? "" : kernel + " ") + words + " " + cmdline.substr(at);
}

std::string slot_cmdline(const KexecPlan& p, unsigned slot) {
    return add_params(p.sides[p.order.at(slot - 1)].cmdline, slot_marker(p, slot));
}

std::optional<unsigned> booted_slot(const KexecPlan& p, const std::string& cmdline) {
    std::istringstream in(cmdline);
    std::string prefix = "exitbench.plan=" + p.id + ":";
    for (std::string w; in >> w;)
        if (w.starts_with(prefix)) {
            try {
                return unsigned(std::stoul(w.substr(prefix.size())));
            } catch (const std::exception&) {
                return std::nullopt;
            }
        }
    return std::nullopt;
}

std::string base_cmdline(const std::string& proc_cmdline) {
    std::istringstream in(proc_cmdline);
    std::string out;
    for (std::string w; in >> w;) {
        if (w.starts_with("BOOT_IMAGE=") || w.starts_with("initrd=") || w.starts_with("exitbench.plan=")) continue;
        out += (out.empty() ? "" : " ") + w;
    }
    return out;
}

void record_boot(KexecPlan& p, KexecBoot b) {
    b.slot = p.slot;
    b.side = p.order.at(p.slot - 1);
    b.retry = p.retry;
    p.boots.push_back(b);
    if (b.failure.empty() || p.retry) {
        if (!b.failure.empty())
            p.short_sides.push_back(fmt::format("{}: one boot short: boot {} of {} failed twice ({})",
                                                b.side ? "B" : "A", b.slot, p.order.size(), b.failure));
        ++p.slot;
        p.retry = false;
    } else {
        p.retry = true;
    }
    p.launched_from.clear();
}

PlanStatus plan_status(const KexecPlan& p) {
    PlanStatus s;
    s.slot = p.slot, s.total = unsigned(p.order.size()), s.retry = p.retry, s.done = p.done;
    for (const auto& b : p.boots) {
        if (b.failure.empty()) ++s.finished[b.side];
        else ++s.failed;
    }
    if (!p.finished()) {
        s.next_side = p.order[p.slot - 1];
        s.next_kernel = p.sides[s.next_side].kernel;
        s.next_cmdline = slot_cmdline(p, p.slot);
    }
    return s;
}

namespace {

// One word of ExecStart=, as systemd reads it: quoted, with its specifiers
// and variables escaped.
std::string unit_word(const std::string& w) {
    std::string q = "\"";
    for (char c : w) {
        if (c == '"' || c == '\\') q += '\\';
        if (c == '%') q += '%';
        if (c == '$') q += '$';
        q += c;
    }
    return q + "\"";
}

} // namespace

std::vector<std::string> resume_command(const KexecPlan& p) {
    return {p.exitbench, "compare", "--resume", "--db", p.db};
}

std::string unit_text(const KexecPlan& p) {
    std::string exec;
    for (const auto& w : resume_command(p)) exec += (exec.empty() ? "" : " ") + unit_word(w);
    return fmt::format(R"(# Written by exitbench for the kexec plan {0}; removed when the plan ends
# or by `exitbench compare --abort`.
[Unit]
Description=exitbench: resume kexec plan {0} (boot the next kernel of the A/B)
After={1}
ConditionPathExists={2}

[Service]
Type=oneshot
ExecStart={3}
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=infinity

[Install]
WantedBy={1}
)", p.id, kUnitWantedBy, plan_state_path(p.db), exec);
}

void install_unit(const std::string& unit_dir, const std::string& text) {
    std::string unit = unit_dir + "/" + kUnitName, wants = unit_dir + "/" + kUnitWantedBy + ".wants";
    std::error_code ec;
    fs::create_directories(wants, ec);
    if (ec) throw HostError(fmt::format("cannot make {}: {}", wants, ec.message()));
    sys::write_file(unit, text, 0644);
    fs::remove(wants + "/" + kUnitName, ec);
    fs::create_symlink(unit, wants + "/" + kUnitName, ec);
    if (ec) throw HostError(fmt::format("cannot enable {} in {}: {}", kUnitName, wants, ec.message()));
}

bool remove_unit(const std::string& unit_dir) {
    std::error_code ec;
    bool link = fs::remove(unit_dir + "/" + kUnitWantedBy + ".wants/" + kUnitName, ec);
    bool unit = fs::remove(unit_dir + "/" + kUnitName, ec);
    fs::remove(unit_dir + "/" + kUnitWantedBy + ".wants", ec);  // only when empty: others' links stay
    return link || unit;
}

bool unit_installed(const std::string& unit_dir) {
    std::error_code ec;
    return fs::exists(unit_dir + "/" + kUnitName, ec) ||
           fs::is_symlink(unit_dir + "/" + kUnitWantedBy + ".wants/" + kUnitName, ec);
}

} // namespace eb::lab
