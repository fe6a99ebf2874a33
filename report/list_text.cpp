#include "report/list_text.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>

#include "report/gate_view.h"
#include "report/grids.h"
#include "report/sanitize.h"

namespace eb::report {

namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

std::string fact(const Env& env, const std::string& key) {
    for (const auto& [k, v] : env)
        if (k == key) return v;
    return "";
}

// What a reader of the list compares hosts by: the CPU and its microcode, the
// kernel and its command line's mitigation switches, the KVM module and its
// parameters.
bool system_key(const std::string& k) {
    return k.starts_with("cpu.") || k == "kernel.release" || k.starts_with("kernel.cmdline.") ||
           k.starts_with("kvm.");
}

std::string cpu_line(const Env& e) {
    return fmt::format("{} ({} family {} model {} stepping {}), microcode {}, {} CPUs online", fact(e, "cpu.model"),
                       fact(e, "cpu.vendor"), fact(e, "cpu.family"), fact(e, "cpu.model_id"), fact(e, "cpu.stepping"),
                       fact(e, "cpu.microcode"), fact(e, "cpu.online"));
}

std::string mitigations_line(const Env& e) {
    std::vector<std::string> set;
    for (const auto& [k, v] : e)
        if (k.starts_with("kernel.cmdline.") && v != "not set") set.push_back(k.substr(15) + "=" + v);
    return set.empty() ? "none on the kernel command line" : fmt::format("{}", fmt::join(set, " "));
}

// argv as a shell reads it back, the binary by its name alone.
std::string command_line(std::vector<std::string> argv) {
    if (argv.empty()) return "(not recorded)";
    argv[0] = std::filesystem::path(argv[0]).filename().string();
    std::string out;
    for (const auto& w : argv) out += (out.empty() ? "" : " ") + shell_word(w);
    return out;
}

void add(std::vector<std::string>& out, const std::vector<std::string>& lines) {
    out.insert(out.end(), lines.begin(), lines.end());
}

std::string join_lines(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
}

size_t name_width(const std::vector<std::string>& names) {
    size_t w = 4;
    for (const auto& n : names) w = std::max(w, printable(n).size());
    return std::min<size_t>(w, 22);
}

std::string side_letter(size_t i) { return i < 26 ? std::string(1, char('A' + i)) : std::to_string(i); }

std::string verdict_text(const suite::Effect& e, const GateMark* mark) {
    if (mark && mark->fails) return "REGRESSION";
    std::string v = suite::verdict_name(e.verdict);
    if (std::isfinite(e.p_holm)) v += fmt::format(" p={:.2g}", e.p_holm);
    return v;
}

} // namespace

std::vector<std::string> fold(const std::string& lead, const std::string& text) {
    std::vector<std::string> out;
    std::string indent(lead.size(), ' '), line = lead, word;
    size_t room = kListColumns > lead.size() + 8 ? kListColumns - lead.size() : 8;
    auto flush_word = [&] {
        while (word.size() > room) {  // a word wider than a line is cut
            if (line.size() > lead.size()) out.push_back(line), line = indent;
            out.push_back(line + word.substr(0, room));
            word.erase(0, room);
            line = indent;
        }
        if (word.empty()) return;
        bool fresh = line.size() == lead.size();
        if (!fresh && line.size() + 1 + word.size() > kListColumns) out.push_back(line), line = indent, fresh = true;
        line += (fresh ? "" : " ") + word;
        word.clear();
    };
    for (char ch : printable(text)) {
        if (ch == ' ') flush_word();
        else word += ch;
    }
    flush_word();
    if (line.size() > lead.size() || out.empty()) out.push_back(line);
    return out;
}

std::vector<std::string> system_block(const std::vector<Env>& sides, const std::vector<std::string>& names) {
    std::vector<std::string> out{"Test System"};
    if (sides.empty() || sides[0].empty()) return {"Test System: not recorded"};
    const Env& e = sides[0];
    add(out, fold("  CPU          ", cpu_line(e)));
    add(out, fold("  Kernel       ", fact(e, "kernel.release")));
    add(out, fold("  Mitigations  ", mitigations_line(e)));
    add(out, fold("  KVM          ", fmt::format("{} ({})", fact(e, "kvm.module"), fact(e, "kvm.backend"))));
    if (sides.size() < 2) return out;
    std::vector<std::string> keys;
    for (const auto& s : sides)
        for (const auto& [k, v] : s)
            if (system_key(k) && std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    std::vector<std::string> differ;
    for (const auto& k : keys) {
        bool same = true;
        for (const auto& s : sides) same = same && fact(s, k) == fact(e, k);
        if (same) continue;
        std::string values;
        for (size_t i = 0; i < sides.size(); ++i)
            values += fmt::format("{}{}={}", i ? " " : "", i < names.size() ? names[i] : side_letter(i), fact(sides[i], k));
        add(differ, fold("    ", k + ": " + values));
    }
    out.push_back(differ.empty() ? "  Differs      nothing of the above between the configurations"
                                 : "  Differs between the configurations (the lines above are A's):");
    add(out, differ);
    return out;
}

std::string list_text(const suite::RunReport& r) {
    std::vector<std::string> out;
    for (const auto& l : run_header_lines(r)) add(out, fold("", l));
    out.emplace_back();
    add(out, system_block({r.env}, {}));
    add(out, fold("Command      ", command_line(r.provenance.argv)));
    out.emplace_back();
    Grid g = run_grid(r);  // test, status, cycles/iter, CI low, CI high, ...
    std::vector<std::string> names;
    for (const auto& row : g.rows) names.push_back(row[0]);
    size_t w = name_width(names);
    out.push_back(fmt::format("{:<{}} {:>11} {:>19}  {}", "test", w, "cycles/iter", "95% CI", "status"));
    for (const auto& row : g.rows) {
        std::string ci = row[3].empty() ? "" : row[3] + "-" + row[4];
        std::string line = fmt::format("{:<{}} {:>11} {:>19}  ", printable_fit(row[0], w), w, printable_fit(row[2], 11),
                                       printable_fit(ci, 19));
        out.push_back(line + printable_fit(row[1], kListColumns - std::min(line.size(), kListColumns - 10)));
    }
    auto notes = run_notes(r);
    if (!notes.empty()) out.emplace_back();
    for (const auto& n : notes) add(out, fold("  ", n));
    return join_lines(out);
}

std::string list_text(const Comparison& c) {
    const auto& rep = c.report;
    std::vector<std::string> out{"exitbench compare"};
    for (const auto& l : c.header) add(out, fold("", l));
    out.emplace_back();
    std::vector<std::string> letters;
    for (size_t i = 0; i < rep.labels.size(); ++i) letters.push_back(side_letter(i));
    add(out, system_block(rep.side_env, letters));
    add(out, fold("Command      ", command_line(c.command)));
    for (size_t i = 0; i < rep.labels.size(); ++i) add(out, fold(fmt::format("  {}  ", letters[i]), rep.labels[i]));
    out.emplace_back();
    std::vector<std::string> names;
    for (const auto& t : rep.tests) names.push_back(t.test);
    size_t w = name_width(names);
    out.push_back(fmt::format("{:<{}} {:>2} {:>11} {:>8} {:>19}  {}", "test", w, "", "cycles/iter", "change",
                              "95% CI of change", "verdict"));
    for (const auto& t : rep.tests)
        for (size_t i = 0; i < t.configs.size(); ++i) {
            const auto& k = t.configs[i];
            std::string cycles = k.unit_medians.empty() ? "not run" : fmt::format("{:.0f}", k.center);
            std::string line = fmt::format("{:<{}} {:>2} {:>11}", printable_fit(t.test, w), w,
                                           i < letters.size() ? letters[i] : side_letter(i), cycles);
            if (i > 0 && i <= t.vs_first.size()) {
                const auto& e = t.vs_first[i - 1];
                const GateMark* mark = c.gate ? c.gate->find(t.test, k.label) : nullptr;
                bool tested = e.verdict != suite::Verdict::NotTestable;
                std::string ci = tested ? fmt::format("[{}, {}]", suite::pct_change(e.ratio_ci.lo),
                                                      suite::pct_change(e.ratio_ci.hi))
                                        : "";
                line += fmt::format(" {:>8} {:>19}  ", suite::pct_change(e.ratio), ci);
                line += printable_fit(verdict_text(e, mark), kListColumns - std::min(line.size(), kListColumns - 10));
            }
            out.push_back(line);
        }
    if (c.gate) add(out, fold("", c.gate->summary()));
    auto notes = compare_notes(c);
    if (!notes.empty()) out.emplace_back();
    for (const auto& n : notes) add(out, fold("  ", n));
    return join_lines(out);
}

} // namespace eb::report
