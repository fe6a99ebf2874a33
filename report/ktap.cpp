// KTAP version 1 (the kernel's Documentation/dev-tools/ktap.rst), as kernel
// CI reads kselftest output: a version line, a plan, one result line per
// test with its figures and reasons as "# " diagnostic lines just before it.
// A compare nests: each test is a subtest block (indented by two spaces, its
// own version line and plan) with one result per configuration. Plain TAP
// consumers (prove) read the top level and ignore the indented blocks.
#include <fmt/format.h>

#include "report/ci_cases.h"
#include "report/exporter.h"
#include "report/ktap.h"
#include "report/sanitize.h"

namespace eb::report {

std::string ktap_description(std::string_view name) {
    std::string out;
    for (char ch : printable(name)) out += ch == '#' ? std::string("\\x23") : std::string(1, ch);
    return out.empty() ? "unnamed" : out;
}

std::vector<std::string> ktap_diagnostics(std::string_view text) {
    std::vector<std::string> out;
    for (size_t at = 0, nl; at <= text.size(); at = nl + 1) {
        nl = text.find('\n', at);
        if (nl == std::string_view::npos) nl = text.size();
        if (nl > at) out.push_back("# " + printable(text.substr(at, nl - at)));
        if (nl == text.size()) break;
    }
    return out;
}

namespace {

class Writer {
public:
    explicit Writer(std::string indent) : indent_(std::move(indent)) {}
    void line(const std::string& l) { text_ += indent_ + l + "\n"; }
    void diag(std::string_view text) {
        for (const auto& l : ktap_diagnostics(text)) line(l);
    }
    void head(size_t plan, const std::string& subtest = "") {
        line("KTAP version 1");
        if (!subtest.empty()) line("# Subtest: " + ktap_description(subtest));
        line(fmt::format("1..{}", plan));
    }
    // A result line with its directive (ktap.rst): SKIP and XFAIL on "ok",
    // TIMEOUT (a hang: the watchdog stopped it) and ERROR (the host failed,
    // not the test) on "not ok", each with the reason's first line.
    void result(size_t n, const std::string& name, Outcome o, const std::string& status, const std::string& text) {
        std::string l = fmt::format("{} {} {}", o == Outcome::Fail ? "not ok" : "ok", n, ktap_description(name));
        const char* directive = o == Outcome::Skip ? "SKIP" : o == Outcome::XFail ? "XFAIL"
                                : o != Outcome::Fail ? nullptr : status == "hung" ? "TIMEOUT"
                                : status == "error" ? "ERROR" : nullptr;
        if (directive) {
            auto first = printable(text.substr(0, text.find('\n')));
            l += fmt::format(" # {}{}{}", directive, first.empty() ? "" : " ", first);
        }
        line(l);
    }
    std::string& text() { return text_; }

private:
    std::string indent_;
    std::string text_;
};

std::string figure_line(const std::string& who, const CiCase& c) {
    std::string l = who + ":";
    for (const auto& [k, v] : c.figures) l += " " + k + "=" + v;
    return l;
}

// A case's diagnostics, then its result line.
void emit_case(Writer& w, size_t n, const std::string& who, const CiCase& c) {
    w.diag(figure_line(who, c));
    if (!c.reason.empty()) w.diag(fmt::format("{} ({}): {}", who, c.status, c.reason));
    w.result(n, c.name, c.outcome, c.status, c.directive_text.empty() ? c.reason : c.directive_text);
}

std::string render_ktap(const CiReport& r) {
    Writer top("");
    size_t plan = r.nested ? r.groups.size() : (r.groups.empty() ? 0 : r.groups[0].cases.size());
    top.head(plan);
    top.diag(r.title);
    for (const auto& h : r.header) top.diag(h);
    for (const auto& n : r.notes) top.diag(n);
    if (!r.nested) {
        size_t n = 0;
        for (const auto& c : r.groups[0].cases) emit_case(top, ++n, c.name, c);
        return top.text();
    }
    size_t n = 0;
    for (const auto& g : r.groups) {
        Writer sub("  ");
        sub.head(g.cases.size(), g.name);
        size_t k = 0;
        for (const auto& c : g.cases) emit_case(sub, ++k, g.name + " " + c.name, c);
        top.text() += sub.text();
        Outcome o = g.outcome();
        top.result(++n, g.name, o, "", o == Outcome::Skip ? g.skip_reason() : "");
    }
    return top.text();
}

class Ktap : public Exporter {
public:
    std::string render(const suite::RunReport& r) const override { return render_ktap(ci_report(r)); }
    std::string render(const Comparison& c) const override { return render_ktap(ci_report(c)); }
};

} // namespace

std::string ktap_skip_all(std::string_view reason) {
    return "KTAP version 1\n1..0 # SKIP " + printable(reason.substr(0, reason.find('\n'))) + "\n";
}

std::unique_ptr<Exporter> ktap_exporter() { return std::make_unique<Ktap>(); }

} // namespace eb::report
