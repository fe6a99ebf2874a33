#include "profile/perf_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <fmt/format.h>
#include <optional>

#include "profile/exit_reasons.h"

namespace eb::profile {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> words(std::string_view s) {
    std::vector<std::string_view> w;
    for (size_t i = 0; i < s.size();) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
        size_t j = i;
        while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\r') ++j;
        if (j > i) w.push_back(s.substr(i, j - i));
        i = j;
    }
    return w;
}

std::string clip(std::string_view s) { return std::string(s.substr(0, 40)); }

void require_text(std::string_view text) {
    if (text.empty()) throw PerfTextError("empty file: no perf kvm stat report in it");
    if (text.size() > kPerfTextMaxBytes)
        throw PerfTextError(fmt::format("{} bytes is too big for a perf kvm stat report (at most {} MiB)",
                                        text.size(), kPerfTextMaxBytes >> 20));
    if (auto nul = text.find('\0'); nul != std::string_view::npos)
        throw PerfTextError(fmt::format("binary data (a NUL byte at offset {}), not a perf kvm stat report text "
                                        "(a perf.data file? see 'exitbench profile import')", nul));
}

// The table a title line opens, if it is one: "VM-EXIT Samples Samples% Time% Min Time Max Time Avg time".
std::optional<Mode> title_mode(std::string_view line) {
    auto s = trim(line);
    static constexpr std::pair<std::string_view, Mode> kTitles[] = {
        {"VM-EXIT", Mode::VmExit}, {"MMIO Access", Mode::Mmio}, {"IO Port Access", Mode::Ioport},
        {"MSR Access", Mode::Msr}};
    for (auto [t, m] : kTitles) {
        if (!s.starts_with(t)) continue;
        auto w = words(s.substr(t.size()));
        static constexpr std::string_view kCols[] = {"Samples", "Samples%", "Time%", "Min", "Time",
                                                     "Max",     "Time",     "Avg",   "time"};
        if (std::equal(w.begin(), w.end(), std::begin(kCols), std::end(kCols))) return m;
    }
    return std::nullopt;
}

double number(std::string_view w, std::string_view suffix, size_t lineno, double max) {
    if (!w.ends_with(suffix) || w.size() == suffix.size())
        throw PerfTextError(fmt::format("line {}: '{}' is not a figure perf prints (%.2f{})", lineno, clip(w), suffix));
    w.remove_suffix(suffix.size());
    double v = 0;
    auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v, std::chars_format::fixed);
    if (ec != std::errc() || end != w.data() + w.size() || !std::isfinite(v) || v < 0 || v > max)
        throw PerfTextError(fmt::format("line {}: '{}{}' is not a figure perf prints (0 to {})", lineno, clip(w),
                                        suffix, max));
    return v;
}

uint64_t count(std::string_view w, size_t lineno) {
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    if (ec != std::errc() || end != w.data() + w.size() || v == 0 || v > kPerfTextMaxCount)
        throw PerfTextError(fmt::format("line {}: '{}' is not a sample count (1 to 2^53)", lineno, clip(w)));
    return v;
}

struct ParsedRow {
    std::string name;
    uint64_t samples = 0;
    double min_us = 0, max_us = 0, avg_us = 0;
    double rel_pct = std::nan("");  // NaN: the row came without its ( +- E% )
    double samples_pct = 0, time_pct = 0;  // perf's Samples% and Time% columns, rounded to 0.01%
};

// "NAME  N  S%  T%  MINus  MAXus  AVGus ( +- E% )", perf's print_result; the
// ( +- E% ) may be missing, as in the excerpts mails quote.
ParsedRow parse_row(std::string_view line, size_t lineno) {
    auto w = words(line);
    auto open = std::find(w.begin(), w.end(), std::string_view("("));
    bool bare = open == w.end() && w.size() >= 7 && w.back().ends_with("us");
    if (!bare && (open == w.end() || open - w.begin() < 7 || w.back() != ")"))
        throw PerfTextError(fmt::format("line {}: not a perf kvm stat row (NAME SAMPLES S% T% MIN MAX AVG "
                                        "[( +-E% )]): '{}'", lineno, clip(trim(line))));
    std::string err;
    for (auto it = open + 1; !bare && it != w.end() - 1; ++it) err += *it;
    if (!bare && !err.starts_with("+-")) throw PerfTextError(fmt::format("line {}: no '( +-E% )' at its end", lineno));
    ParsedRow r;
    auto f = open - 6;
    for (auto it = w.begin(); it != f; ++it) r.name += (r.name.empty() ? "" : " ") + std::string(*it);
    if (r.name.size() > 64 || !std::all_of(r.name.begin(), r.name.end(), [](char c) { return c >= 0x20 && c < 0x7f; }))
        throw PerfTextError(fmt::format("line {}: a key name perf does not print (over 64 bytes or not "
                                        "printable ASCII)", lineno));
    r.samples = count(f[0], lineno);
    r.samples_pct = number(f[1], "%", lineno, 100);
    r.time_pct = number(f[2], "%", lineno, 100);
    r.min_us = number(f[3], "us", lineno, kPerfTextMaxUs);
    r.max_us = number(f[4], "us", lineno, kPerfTextMaxUs);
    r.avg_us = number(f[5], "us", lineno, kPerfTextMaxUs);
    if (!bare) r.rel_pct = number(std::string_view(err).substr(2), "%", lineno, 1e6);
    // perf rounds each to 0.01 us; the mean lies between min and max.
    if (r.min_us > r.max_us || r.avg_us + 0.01 < r.min_us || r.avg_us > r.max_us + 0.01)
        throw PerfTextError(fmt::format("line {}: '{}' has min {:.2f}us, max {:.2f}us, avg {:.2f}us: not a "
                                        "row perf prints", lineno, clip(r.name), r.min_us, r.max_us, r.avg_us));
    return r;
}

// "0x3f8:POUT", "0xc0000080:W", "0xfee00300:R" as (address, info).
std::pair<uint64_t, uint32_t> access_key(Mode m, std::string_view name, size_t lineno) {
    auto colon = name.rfind(':');
    std::string_view addr = name.substr(0, colon), kind = colon == name.npos ? "" : name.substr(colon + 1);
    uint64_t v = 0;
    bool hex = addr.starts_with("0x");
    auto [end, ec] = std::from_chars(addr.data() + (hex ? 2 : 0), addr.data() + addr.size(), v, hex ? 16 : 10);
    std::optional<uint32_t> info;
    if (m == Mode::Ioport) info = kind == "POUT" ? 1u : kind == "PIN" ? std::optional(0u) : std::nullopt;
    if (m == Mode::Msr) info = kind == "W" ? 1u : kind == "R" ? std::optional(0u) : std::nullopt;
    if (m == Mode::Mmio) info = kind == "W" ? uint32_t(kMmioWrite) : kind == "R" ? std::optional(uint32_t(kMmioRead))
                                                                                   : std::nullopt;
    if (colon == name.npos || ec != std::errc() || end != addr.data() + addr.size() || addr.empty() || !info)
        throw PerfTextError(fmt::format("line {}: '{}' is not a key perf prints in a {} table (ADDRESS:{})", lineno,
                                        clip(name), mode_name(m), m == Mode::Ioport ? "PIN|POUT" : "R|W"));
    return {v, *info};
}

Row to_row(Mode m, const ParsedRow& p, size_t lineno) {
    Row r;
    r.type = m == Mode::VmExit ? EventType::Exit : m == Mode::Mmio ? EventType::Mmio
             : m == Mode::Ioport                 ? EventType::Pio
                                                 : EventType::Msr;
    if (m != Mode::VmExit) std::tie(r.key, r.info) = access_key(m, p.name, lineno);
    r.name = p.name;
    r.count = p.samples;
    r.min_ns = uint64_t(std::llround(p.min_us * 1000));
    r.max_ns = uint64_t(std::llround(p.max_us * 1000));
    r.mean_ns = p.avg_us * 1000;
    double total = r.mean_ns * double(r.count);
    if (total >= 0x1p63)  // llround would overflow
        throw PerfTextError(fmt::format("line {}: {} samples of {}us add up past 2^63 ns", lineno, p.samples, p.avg_us));
    r.total_ns = uint64_t(std::llround(total));
    double s = p.rel_pct / 100 * r.mean_ns * std::sqrt(double(r.count));  // rel SE = s / sqrt(n) / mean
    // No ( +- E% ): the spread is unknown (NaN), never a made-up 0.
    r.m2 = std::isnan(p.rel_pct) ? p.rel_pct : r.count > 1 ? s * s * double(r.count - 1) : 0;
    return r;
}

// VM-EXIT names are SVM's or VMX's: the ISA whose table names every row.
void key_exit_rows(Report& rep, size_t title_line) {
    for (std::string_view isa : {"svm", "vmx"}) {
        std::vector<uint64_t> codes;
        for (const Row& r : rep.rows)
            if (auto c = exit_reason_code(isa, r.name)) codes.push_back(*c);
        if (codes.size() != rep.rows.size()) continue;
        for (size_t i = 0; i < codes.size(); ++i) rep.rows[i].key = codes[i];
        rep.isa = isa;
        return;
    }
    throw PerfTextError(fmt::format("line {}: the VM-EXIT table's reasons are neither all SVM nor all VMX "
                                    "exit reason names", title_line));
}

struct Lines {
    std::string_view text;
    size_t at = 0, lineno = 0;
    std::optional<std::string_view> next() {
        if (at >= text.size()) return std::nullopt;
        size_t nl = std::min(text.find('\n', at), text.size());
        auto l = text.substr(at, nl - at);
        at = nl + 1;
        ++lineno;
        return unquote(l);
    }
    // A mail's quoting ("> > ") before a pasted table: perf's lines never start with '>'.
    static std::string_view unquote(std::string_view l) {
        size_t i = 0;
        while (true) {
            size_t j = i;
            while (j < l.size() && l[j] == ' ') ++j;
            if (j >= l.size() || l[j] != '>') break;
            i = j + 1;
        }
        if (i > 0 && i < l.size() && l[i] == ' ') ++i;
        return l.substr(i);
    }
};

// A row without its ( +- E% ), whole or wrapped: NAME, a count, then figures
// ending in "us". Prose after a table ("... a bonus") is not one.
bool bare_row(std::string_view line) {
    auto w = words(line);
    if (w.size() < 6 || !w.back().ends_with("us")) return false;
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(w[1].data(), w[1].data() + w[1].size(), n);
    return ec == std::errc() && end == w[1].data() + w[1].size();
}

// A row a mail client wrapped before its "AVGus ( +- E% )": the two lines
// joined, or `line` as it is.
std::string unwrap_row(std::string_view line, Lines& in) {
    auto w = words(line);
    if (w.size() != 6 || !w.back().ends_with("us")) return std::string(line);
    size_t peek = in.at, peek_no = in.lineno;
    if (auto next = in.next()) {
        auto nw = words(*next);
        if (!nw.empty() && nw.front().ends_with("us"))
            return std::string(trim(line)) + " " + std::string(trim(*next));
    }
    in.at = peek, in.lineno = peek_no;
    return std::string(line);
}

// The rows after a title line, up to the footer or the first line that is
// neither a row nor blank (a paste cut short).
Report read_table(Mode m, Lines& in, std::string_view source) {
    Report rep;
    rep.mode = m;
    rep.sort = "as in the file";
    rep.imported = fmt::format("perf kvm stat report text ({}): count, min, max, mean and +-% only", source);
    size_t title = in.lineno;
    std::optional<uint64_t> footer;
    double pct_sum = 0, time_sum = 0;
    for (size_t peek = in.at; auto l = in.next(); peek = in.at) {
        auto s = trim(*l);
        if (s.empty()) continue;
        if (s.starts_with("Total Samples:")) {
            auto n = trim(s.substr(14, s.find(',') == s.npos ? s.npos : s.find(',') - 14));
            footer = n == "0" ? 0 : count(n, in.lineno);
            break;
        }
        if (title_mode(*l) || !(s.ends_with(")") || bare_row(s))) {
            in.at = peek;
            --in.lineno;
            break;
        }
        size_t row_line = in.lineno;
        auto row = parse_row(unwrap_row(*l, in), row_line);
        pct_sum += row.samples_pct;
        time_sum += row.time_pct;
        rep.rows.push_back(to_row(m, row, in.lineno));
        if (rep.rows.size() > 100000) throw PerfTextError(fmt::format("line {}: over 100000 rows", in.lineno));
    }
    // perf prints an empty table with "Total Samples:0" when nothing of its kind happened.
    if (rep.rows.empty() && footer != uint64_t(0))
        throw PerfTextError(fmt::format("line {}: a {} table with no rows and no 'Total Samples:0' footer", title,
                                        mode_name(m)));
    if (m == Mode::VmExit && !rep.rows.empty()) key_exit_rows(rep, title);
    std::set<std::pair<uint64_t, uint32_t>> keys;
    for (const Row& r : rep.rows) {
        if (!keys.insert({r.key, r.info}).second)
            throw PerfTextError(fmt::format("line {}: the {} table has two rows for '{}'", title, mode_name(m), r.name));
        // Sums that wrapped read 2048 rows of 2^53 samples as 0, and a footer of 0 agreed.
        if (__builtin_add_overflow(rep.total_samples, r.count, &rep.total_samples) ||
            __builtin_add_overflow(rep.total_time_ns, r.total_ns, &rep.total_time_ns))
            throw PerfTextError(fmt::format("line {}: the {} table's rows add up past 2^64", title, mode_name(m)));
    }
    // Without the footer, perf's Samples% column tells an excerpt (the rows
    // a mail quotes) from a whole table; each is rounded to 0.01%. Above 100%
    // no perf printed it.
    double slack = 0.01 + 0.005 * double(rep.rows.size());
    if (!footer && !rep.rows.empty() && pct_sum > 100 + slack)
        throw PerfTextError(fmt::format("line {}: the {} table's rows' Samples% add up to {:.2f}%, over 100%: not a "
                                        "table perf prints", in.lineno, mode_name(m), pct_sum));
    if (!footer && !rep.rows.empty() && pct_sum < 100 - slack)
        rep.imported += fmt::format("; an excerpt: its {} row(s) hold {:.2f}% of perf's samples and {:.2f}% of its "
                                    "time, so shares here are of these rows only", rep.rows.size(), pct_sum, time_sum);
    if (std::any_of(rep.rows.begin(), rep.rows.end(), [](const Row& r) { return std::isnan(r.m2); }))
        rep.imported += "; rows without perf's ( +- E% ) have no spread, so no test of their means";
    if (footer && *footer != rep.total_samples)
        throw PerfTextError(fmt::format("line {}: the footer says {} samples, the {} rows add up to {}", in.lineno,
                                        *footer, rep.rows.size(), rep.total_samples));
    return rep;
}

} // namespace

std::vector<Report> parse_perf_text(std::string_view text, std::string_view source) {
    require_text(text);
    std::vector<Report> out;
    Lines in{text};
    while (auto l = in.next())
        if (auto m = title_mode(*l)) out.push_back(read_table(*m, in, source));
    if (out.empty())
        throw PerfTextError(fmt::format("no perf kvm stat table (a 'VM-EXIT', 'IO Port Access', 'MSR Access' or "
                                        "'MMIO Access' title line with perf's columns) among its {} lines",
                                        in.lineno));
    return out;
}

} // namespace eb::profile
