// JUnit XML, the structure GitLab and Jenkins read: <testsuites>, a
// <testsuite> per run (or per compared test), a <testcase> per test (or per
// configuration) with <skipped>, <failure> or <error>: the reason and the
// figures as its text (what GitLab shows), and the figures as its
// <system-out> (what Jenkins shows). Jenkins xUnit's junit-10.xsd
// (tests/schema/) is the structure it keeps to: no properties on a testcase. Names come from result files, so every string is escaped
// and characters XML 1.0 forbids (or bytes that are not UTF-8) are replaced.
#include <fmt/format.h>

#include "report/ci_cases.h"
#include "report/exporter.h"
#include "report/junit.h"

namespace eb::report {

namespace {

// The code point of the UTF-8 sequence at s[i] and its length; 0xFFFD, length
// 1, for a byte that does not start a well-formed, shortest-form sequence.
std::pair<char32_t, size_t> decode(std::string_view s, size_t i) {
    auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char c = b(i);
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (len == 1) return {c, 1};
    if (len == 0 || i + len > s.size()) return {0xFFFD, 1};
    char32_t cp = c & (0xFF >> (len + 1));
    for (size_t k = 1; k < len; ++k) {
        if ((b(i + k) & 0xC0) != 0x80) return {0xFFFD, 1};
        cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0xFFFD, 1};
    return {cp, len};
}

bool xml_char(char32_t c) {
    return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
           (c >= 0x10000 && c <= 0x10FFFF);
}

} // namespace

std::string xml_escape(std::string_view s, bool attribute) {
    std::string out;
    for (size_t i = 0; i < s.size();) {
        auto [cp, len] = decode(s, i);
        std::string_view raw = cp == 0xFFFD && len == 1 ? "\xEF\xBF\xBD" : s.substr(i, len);
        i += len;
        if (!xml_char(cp)) out += "\xEF\xBF\xBD";  // U+FFFD: the character was there, and is not XML
        else if (cp == '&') out += "&amp;";
        else if (cp == '<') out += "&lt;";
        else if (cp == '>') out += "&gt;";
        else if (cp == '"' && attribute) out += "&quot;";
        else if (cp == '\'' && attribute) out += "&apos;";
        // Attribute-value normalization would turn these into spaces.
        else if (attribute && (cp == '\t' || cp == '\n' || cp == '\r')) out += fmt::format("&#{};", unsigned(cp));
        else if (cp == '\r') out += "&#13;";  // a raw CR in text is read back as LF
        else out += raw;
    }
    return out;
}

namespace {

std::string attr(std::string_view name, std::string_view value) {
    return fmt::format(" {}=\"{}\"", name, xml_escape(value, true));
}

struct Counts {
    size_t tests = 0, failures = 0, errors = 0, skipped = 0;
    double seconds = 0;
    // junit-10.xsd has `skipped` on a testsuite, not on testsuites.
    std::string attrs(bool with_skipped) const {
        return fmt::format(" tests=\"{}\" failures=\"{}\" errors=\"{}\"{} time=\"{:.3f}\"", tests, failures, errors,
                           with_skipped ? fmt::format(" skipped=\"{}\"", skipped) : "", seconds);
    }
};

bool is_error(const CiCase& c) { return c.status == "error"; }  // host-side, not the test's verdict

Counts count(const CiGroup& g) {
    Counts n;
    for (const auto& c : g.cases) {
        ++n.tests;
        if (c.outcome == Outcome::Skip || c.outcome == Outcome::XFail) ++n.skipped;
        else if (c.outcome == Outcome::Fail) ++(is_error(c) ? n.errors : n.failures);
        if (c.seconds > 0) n.seconds += c.seconds;
    }
    return n;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// The status and figures, one "name=value" list: the text GitLab shows of a
// failure or a skip (it never shows properties), and system-out, which
// Jenkins shows of every case.
std::string figure_text(const CiCase& c) {
    std::string out = "status=" + c.status;
    for (const auto& [k, v] : c.figures) out += " " + k + "=" + v;
    return out;
}

// A failure's or a skip's element: the reason's first line as the message,
// the whole reason and the figures as its text.
std::string verdict_element(const char* el, const std::string& type, const std::string& why, const CiCase& c) {
    return fmt::format("      <{}{}{}>{}</{}>\n", el, attr("message", first_line(why)), attr("type", type),
                       xml_escape(why + "\n" + figure_text(c), false), el);
}

std::string testcase(const CiCase& c, const std::string& classname) {
    std::string out = "    <testcase" + attr("name", c.name) + attr("classname", classname);
    if (c.seconds >= 0) out += fmt::format(" time=\"{:.3f}\"", c.seconds);
    out += ">\n";
    std::string why = c.reason.empty() ? c.status : c.reason;
    if (c.outcome == Outcome::Skip) out += verdict_element("skipped", c.status, why, c);
    else if (c.outcome == Outcome::XFail)  // as pytest writes an expected failure
        out += verdict_element("skipped", "xfail", "expected failure: " + why, c);
    else if (c.outcome == Outcome::Fail) out += verdict_element(is_error(c) ? "error" : "failure", c.status, why, c);
    std::string said = figure_text(c) + (c.reason.empty() ? "" : "\n" + c.reason);
    return out + "      <system-out>" + xml_escape(said, false) + "</system-out>\n    </testcase>\n";
}

std::string render_junit(const CiReport& r) {
    Counts all;
    std::string suites;
    for (const auto& g : r.groups) {
        Counts n = count(g);
        all.tests += n.tests, all.failures += n.failures, all.errors += n.errors, all.skipped += n.skipped;
        all.seconds += n.seconds;
        std::string name = g.name.empty() ? r.title : r.title + ": " + g.name;
        std::string classname = g.name.empty() ? "exitbench.run" : "exitbench.compare." + g.name;
        suites += "  <testsuite" + attr("name", name) + n.attrs(true);
        if (!r.timestamp.empty()) suites += attr("timestamp", r.timestamp.substr(0, r.timestamp.find('Z')));
        if (!r.hostname.empty()) suites += attr("hostname", r.hostname);
        suites += ">\n";
        for (const auto& c : g.cases) suites += testcase(c, classname);
        std::string out;  // what ran and the warnings: once, with the first suite
        for (const auto& l : r.header) out += l + "\n";
        for (const auto& l : r.notes) out += l + "\n";
        if (!out.empty() && &g == &r.groups.front())
            suites += "    <system-out>" + xml_escape(out, false) + "</system-out>\n";
        suites += "  </testsuite>\n";
    }
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites" + attr("name", r.title) + all.attrs(false) + ">\n" +
           suites + "</testsuites>\n";
}

class Junit : public Exporter {
public:
    std::string render(const suite::RunReport& r) const override { return render_junit(ci_report(r)); }
    std::string render(const Comparison& c) const override { return render_junit(ci_report(c)); }
};

} // namespace

std::unique_ptr<Exporter> junit_exporter() { return std::make_unique<Junit>(); }

} // namespace eb::report
