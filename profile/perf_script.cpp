#include "profile/perf_script.h"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <optional>
#include <unordered_map>

#include "profile/exit_reasons.h"

namespace eb::profile {

namespace {

std::vector<std::string_view> tokens(std::string_view s) {  // split at blanks and commas
    std::vector<std::string_view> w;
    for (size_t i = 0; i < s.size();) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ',' || s[i] == '\r')) ++i;
        size_t j = i;
        while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != ',' && s[j] != '\r') ++j;
        if (j > i) w.push_back(s.substr(i, j - i));
        i = j;
    }
    return w;
}

std::optional<uint64_t> num(std::string_view w, int base = 10) {
    if (base == 16 && w.starts_with("0x")) w.remove_prefix(2);
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v, base);
    if (ec != std::errc() || end != w.data() + w.size() || w.empty()) return std::nullopt;
    return v;
}

// The value after `key` among the words.
std::optional<std::string_view> after(const std::vector<std::string_view>& w, std::string_view key) {
    auto it = std::find(w.begin(), w.end(), key);
    if (it == w.end() || it + 1 == w.end()) return std::nullopt;
    return *(it + 1);
}

// "7.766865140:" as ns; perf without --ns prints microseconds.
std::optional<uint64_t> timestamp(std::string_view w) {
    if (!w.ends_with(":")) return std::nullopt;
    w.remove_suffix(1);
    auto dot = w.find('.');
    if (dot == w.npos) return std::nullopt;
    auto s = num(w.substr(0, dot));
    auto frac = w.substr(dot + 1);
    auto f = num(frac);
    if (!s || !f || frac.size() > 9 || *s > 18000000000ull) return std::nullopt;
    uint64_t ns = *f;
    for (size_t i = frac.size(); i < 9; ++i) ns *= 10;
    return *s * 1000000000ull + ns;
}

struct Parser {
    PerfScript out;
    std::unordered_map<uint32_t, uint32_t> vcpu_of;  // tid: the vcpu of its last entry/exit
    std::unordered_map<std::string, std::optional<uint64_t>> codes;  // reason name: code, in header.isa
    size_t lineno = 0;

    [[noreturn]] void bad(std::string_view what) const {
        throw PerfScriptError(fmt::format("line {}: {}", lineno, what));
    }

    // The first named reason fixes the ISA (SVM's names are lowercase, VMX's uppercase).
    std::optional<uint64_t> reason_code(std::string_view reason) {
        auto [it, fresh] = codes.try_emplace(std::string(reason));
        if (!fresh) return it->second;
        for (std::string_view i : {"svm", "vmx"}) {
            if (out.trace.header.isa != "unknown" && out.trace.header.isa != i) continue;
            if ((it->second = exit_reason_code(i, reason))) {
                if (!reason.starts_with("0x")) out.trace.header.isa = std::string(i);
                break;
            }
        }
        return it->second;
    }

    std::string_view tp_;                      // the line's tracepoint
    const std::vector<std::string_view>* f_ = nullptr;  // and its fields, for need()'s message
    uint64_t need(std::optional<uint64_t> v) const {
        if (!v) bad(fmt::format("kvm:{} fields perf prints differently: '{}'", tp_, fmt::join(*f_, " ")));
        return *v;
    }

    void exit_or_entry(std::string_view tp, const std::vector<std::string_view>& f, Event& e) {
        uint64_t vcpu = need(f.size() > 1 && f[0] == "vcpu" ? num(f[1]) : std::nullopt);
        if (vcpu > UINT32_MAX) bad(fmt::format("vcpu {} is out of range (a vCPU id is 32 bits)", vcpu));  // not wrapped
        e.vcpu = uint32_t(vcpu);
        vcpu_of[e.tid] = e.vcpu;
        if (tp == "kvm_entry") {
            e.type = EventType::Entry;
            e.a = need(after(f, "rip") ? num(*after(f, "rip"), 16) : std::nullopt);
            return;
        }
        e.type = EventType::Exit;
        auto reason = after(f, "reason");
        if (!reason) bad("kvm:kvm_exit without a reason");
        e.a = need(reason_code(*reason));
        e.flags = out.trace.header.isa == "svm";
        e.b = after(f, "rip") ? need(num(*after(f, "rip"), 16)) : 0;
    }

    // The tracepoint's own fields into e; false if e is not one exitbench keeps.
    bool fields(std::string_view tp, const std::vector<std::string_view>& f, Event& e) {
        tp_ = tp;
        f_ = &f;
        if (tp == "kvm_exit" || tp == "kvm_entry") {
            exit_or_entry(tp, f, e);
            return true;
        }
        auto v = vcpu_of.find(e.tid);
        e.vcpu = v == vcpu_of.end() ? 0 : v->second;
        if (tp == "kvm_msr") {  // "msr_read c0000080 = 0xd01"
            e.type = EventType::Msr;
            if (f.empty() || (f[0] != "msr_read" && f[0] != "msr_write")) need(std::nullopt);
            e.b = f[0] == "msr_write";
            e.a = need(f.size() > 1 ? num(f[1], 16) : std::nullopt);
        } else if (tp == "kvm_pio") {  // "pio_write at 0x5e0 size 4 count 1 val 0x1"
            e.type = EventType::Pio;
            if (f.empty() || (f[0] != "pio_read" && f[0] != "pio_write")) need(std::nullopt);
            e.b = f[0] == "pio_write";
            e.a = need(after(f, "at") ? num(*after(f, "at"), 16) : std::nullopt);
            e.flags = uint8_t(need(after(f, "size") ? num(*after(f, "size")) : std::nullopt));
        } else if (tp == "kvm_mmio") {  // "mmio write len 4 gpa 0xfee000b0 val 0x0"
            e.type = EventType::Mmio;
            std::string_view kind = f.size() > 1 ? f[1] : "";
            e.b = kind == "write" ? kMmioWrite : kind == "read" ? kMmioRead : kMmioUnsatisfiedRead;
            if (kind != "write" && kind != "read" && kind != "unsatisfied-read") need(std::nullopt);
            e.a = need(after(f, "gpa") ? num(*after(f, "gpa"), 16) : std::nullopt);
            e.flags = uint8_t(need(after(f, "len") ? num(*after(f, "len")) : std::nullopt));
        } else if (tp == "kvm_userspace_exit") {  // "reason KVM_EXIT_IO (2)"
            e.type = EventType::UserspaceExit;
            std::string_view n = f.size() > 2 ? f[2] : "";
            if (n.size() < 3 || n.front() != '(' || n.back() != ')') need(std::nullopt);
            e.a = need(num(n.substr(1, n.size() - 2)));
        } else {
            return false;
        }
        return true;
    }

    void line(std::string_view l) {
        auto at = l.find(" kvm:");
        auto w = tokens(l.substr(0, at == l.npos ? l.size() : at));
        if (at == l.npos) {  // blank, or another subsystem's event: left out, counted
            if (w.empty()) return;
            for (size_t i = 0; i + 1 < w.size(); ++i)
                if (timestamp(w[i]) && w[i + 1].ends_with(":") && w[i + 1].find(':') < w[i + 1].size() - 1) {
                    ++out.skipped[std::string(w[i + 1].substr(0, w[i + 1].size() - 1))];
                    return;
                }
            bad("not a perf script line of a kvm tracepoint (TID [CPU] TIME: kvm:NAME: FIELDS)");
        }
        auto rest = l.substr(at + 5);
        auto colon = rest.find(':');
        if (w.size() < 3 || colon == rest.npos) bad("not 'TID [CPU] TIME: kvm:NAME: FIELDS'");
        Event e{};
        auto tid = num(w[w.size() - 3]);
        auto cpu = w[w.size() - 2];
        auto ts = timestamp(w.back());
        auto c = cpu.size() > 2 && cpu.front() == '[' && cpu.back() == ']' ? num(cpu.substr(1, cpu.size() - 2))
                                                                           : std::nullopt;
        if (!tid || *tid > UINT32_MAX || !c || *c > UINT16_MAX || !ts) bad("not 'TID [CPU] TIME:' before kvm:");
        e.tid = uint32_t(*tid);
        e.cpu = uint16_t(*c);
        e.ts_ns = *ts;
        auto tp = rest.substr(0, colon);
        if (fields(tp, tokens(rest.substr(colon + 1)), e)) out.trace.events.push_back(e);
        else ++out.skipped[std::string(tp)];
    }
};

} // namespace

PerfScript parse_perf_script(std::string_view text) {
    if (text.find('\0') != text.npos) throw PerfScriptError("binary data, not perf script output");
    Parser p;
    for (size_t at = 0; at < text.size();) {
        size_t nl = std::min(text.find('\n', at), text.size());
        ++p.lineno;
        p.line(text.substr(at, nl - at));
        at = nl + 1;
    }
    if (p.out.trace.events.empty())
        throw PerfScriptError(fmt::format("no kvm tracepoint event among its {} lines (was it recorded with "
                                          "'perf kvm stat record'?)", p.lineno));
    std::vector<std::string> seen;
    for (const Event& e : p.out.trace.events) {
        std::string n(event_type_name(e.type));
        if (std::find(seen.begin(), seen.end(), n) == seen.end()) seen.push_back(n);
    }
    p.out.trace.header.tracepoints = seen;
    return p.out;
}

} // namespace eb::profile
