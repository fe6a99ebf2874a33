#include "report/kut_import.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fmt/format.h>

#include "report/sha256.h"
#include "suite/registry.h"

namespace eb::report {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

// Refuses what is not a text log: NUL bytes or mostly control bytes.
void require_text(std::string_view text) {
    if (text.empty()) throw KutFormatError("empty file: no vmexit.flat output in it");
    if (text.size() > kKutMaxBytes)
        throw KutFormatError(fmt::format("{} bytes is too big for a vmexit.flat log (at most {} MiB)", text.size(),
                                         kKutMaxBytes >> 20));
    if (auto nul = text.find('\0'); nul != std::string_view::npos)
        throw KutFormatError(fmt::format("binary data (a NUL byte at offset {}), not a vmexit.flat log", nul));
    size_t control = std::count_if(text.begin(), text.end(), [](char c) {
        auto u = static_cast<unsigned char>(c);
        return u < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\x1b';
    });
    if (control * 10 > text.size())
        throw KutFormatError("binary data (mostly control bytes), not a vmexit.flat log");
}

// "name 1234" or "name (skipped)" at the start of a line, name a vmexit.flat
// test. Indented lines ("  ipi ipi 123", the IPI receiver's figures) and
// anything else are not results.
std::optional<KutLine> result_line(std::string_view raw, size_t lineno) {
    if (raw.empty() || raw.front() == ' ' || raw.front() == '\t') return std::nullopt;
    auto s = trim(raw);
    auto sp = s.find_first_of(" \t");
    if (sp == std::string_view::npos) return std::nullopt;
    auto name = s.substr(0, sp);
    auto value = trim(s.substr(sp));
    const auto* spec = suite::find_test(name);
    if (!spec || spec->internal || value.find_first_of(" \t") != std::string_view::npos) return std::nullopt;
    if (value == "(skipped)") return KutLine{spec->name, std::nullopt, lineno, {}};
    bool numeric = !value.empty() && std::all_of(value.begin() + (value.front() == '-'), value.end(), ::isdigit) &&
                   value != "-";
    if (!numeric) return std::nullopt;
    int64_t v = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    // 0 is no time at all: its log would reach the statistics as -inf.
    if (ec != std::errc() || end != value.data() + value.size() || v <= 0 || v > kKutMaxCycles)
        throw KutFormatError(fmt::format("line {}: {} '{}' is not a cycle count vmexit.flat prints (1 to {})", lineno,
                                         spec->name, std::string(value.substr(0, 40)), kKutMaxCycles));
    return KutLine{spec->name, v, lineno, {}};
}

// run_tests.sh's first line: "timeout ... qemu-system-x86_64 ... -kernel
// x86/vmexit.flat ... -append NAMES # -initrd ...". The vmexit.flat tests named.
std::vector<std::string> appended_tests(std::string_view line) {
    std::vector<std::string> out;
    auto at = line.find(" -append ");
    if (line.find("vmexit.flat") == std::string_view::npos || at == std::string_view::npos) return out;
    auto rest = line.substr(at + 9);
    rest = rest.substr(0, rest.find(" #"));
    for (size_t i = 0; i < rest.size();) {
        size_t j = std::min(rest.find(' ', i), rest.size());
        auto word = trim(rest.substr(i, j - i));
        if (word.size() > 1 && word.front() == '\'' && word.back() == '\'') word = word.substr(1, word.size() - 2);
        if (const auto* spec = suite::find_test(word); spec && !spec->internal) out.push_back(spec->name);
        i = j + 1;
    }
    return out;
}

// Tests QEMU's command line named that printed no result: QEMU was killed
// (run_tests.sh's timeout: "terminating on signal 15 ... (timeout)") or ended.
void add_unfinished(KutOutput& out, std::string_view text) {
    auto first = text.substr(0, text.find('\n'));
    auto named = appended_tests(first);
    std::string why;
    if (auto t = text.find("terminating on signal"); t != std::string_view::npos) {
        auto start = text.rfind('\n', t);
        start = start == std::string_view::npos ? 0 : start + 1;
        why = std::string(trim(text.substr(start, text.find('\n', t) - start)));
    }
    if (named.empty() || (why.empty() && !out.tests.empty())) return;
    if (why.empty()) why = "QEMU ended before the test printed a result";
    for (const auto& name : named) {
        bool seen = std::any_of(out.tests.begin(), out.tests.end(), [&](const KutLine& l) { return l.name == name; });
        if (!seen) out.tests.push_back({name, std::nullopt, 1, "no result in the run_tests.sh log: " + why.substr(0, 200)});
    }
}

} // namespace

KutOutput parse_kut(std::string_view text) {
    require_text(text);
    KutOutput out;
    size_t lineno = 0;
    for (size_t at = 0; at < text.size();) {
        size_t nl = text.find('\n', at);
        if (nl == std::string_view::npos) nl = text.size();
        ++lineno;
        if (auto r = result_line(text.substr(at, nl - at), lineno)) out.tests.push_back(std::move(*r));
        else ++out.other_lines;
        at = nl + 1;
    }
    add_unfinished(out, text);
    if (out.tests.empty())
        throw KutFormatError(fmt::format("no vmexit.flat result line ('NAME CYCLES' or 'NAME (skipped)', NAME a "
                                         "vmexit.flat test) among its {} lines", lineno));
    return out;
}

namespace {

suite::RunReport empty_report(const KutSource& src) {
    suite::RunReport r;
    r.provenance.imported = suite::ImportSource{"kvm-unit-tests", src.file, src.sha256};
    r.settings.sessions = 1;
    r.settings.repeats = 1;
    r.settings.baseline = false;
    return r;
}

suite::TestResult& result_for(suite::RunReport& r, const std::string& name) {
    auto it = std::find_if(r.results.begin(), r.results.end(), [&](const auto& t) { return t.name == name; });
    if (it != r.results.end()) return *it;
    auto& t = r.results.emplace_back(suite::TestResult{.name = name});
    t.exits.kind = "unknown";
    t.exits.source = "kvm-unit-tests";
    t.exits.note = "imported from kvm-unit-tests: its exits are not verified";
    return t;
}

// One file's lines into the run; `file` is named in the reasons when the
// run holds several files.
void add_lines(suite::RunReport& r, const KutOutput& k, const std::string& file) {
    for (const auto& line : k.tests) {
        auto& t = result_for(r, line.name);
        if (!line.unfinished.empty()) {
            if (t.sessions.empty()) {
                t.status = suite::Status::Hung;
                t.detail = file.empty() ? line.unfinished : file + ": " + line.unfinished;
            }
            continue;
        }
        if (!line.cycles) {
            if (t.sessions.empty()) {
                t.status = suite::Status::Skipped;
                t.detail = fmt::format("vmexit.flat printed '{} (skipped)' ({}line {})", line.name,
                                       file.empty() ? "" : file + " ", line.line);
            }
            continue;
        }
        t.status = suite::Status::Unverified;
        t.detail.clear();
        if (t.sessions.empty()) t.sessions.push_back({});
        t.sessions[0].samples.push_back(double(*line.cycles));
    }
}

std::vector<std::string> names_in(const KutOutput& k) {
    std::vector<std::string> out;
    for (const auto& l : k.tests)
        if (std::find(out.begin(), out.end(), l.name) == out.end()) out.push_back(l.name);
    return out;
}

std::string base_name(const std::string& path) {
    auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

bool is_run_tests_log(std::string_view text) {
    return !appended_tests(text.substr(0, text.find('\n'))).empty();
}

std::string other_kut_kernel(std::string_view text) {
    auto first = text.substr(0, text.find('\n'));
    auto at = first.find(" -kernel ");
    if (first.find("qemu-system") == std::string_view::npos || at == std::string_view::npos) return "";
    auto kernel = first.substr(at + 9);
    kernel = kernel.substr(0, kernel.find(' '));
    if (!kernel.ends_with(".flat") || kernel.ends_with("vmexit.flat")) return "";
    return std::string(kernel.substr(0, 100));
}

suite::RunReport kut_report(const KutOutput& k, const KutSource& src) {
    auto r = empty_report(src);
    add_lines(r, k, "");
    return r;
}

std::string kut_logs_sha256(const std::vector<KutSource>& logs) {
    std::vector<std::pair<std::string, std::string>> lines;
    for (const auto& l : logs) lines.emplace_back(base_name(l.file), l.sha256);
    std::sort(lines.begin(), lines.end());
    std::string manifest;
    for (const auto& [name, sha] : lines) manifest += sha + "  " + name + "\n";
    return sha256_hex(manifest);
}

suite::RunReport kut_run_report(const std::vector<KutLog>& logs, const std::string& where) {
    std::vector<KutSource> sources;
    std::vector<std::pair<std::string, std::string>> seen;  // test, the file holding it
    for (const auto& log : logs) {
        sources.push_back(log.src);
        for (const auto& name : names_in(log.parsed)) {
            auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == name; });
            if (it != seen.end())
                throw KutFormatError(fmt::format("{} and {} both hold test {}: one run_tests.sh invocation runs a "
                                                 "test once (--per-file imports each file as a run of its own)",
                                                 it->second, log.src.file, name));
            seen.emplace_back(name, log.src.file);
        }
    }
    auto r = empty_report({where, kut_logs_sha256(sources)});
    for (const auto& log : logs) {
        add_lines(r, log.parsed, log.src.file);
        r.provenance.imported->logs.push_back({log.src.file, log.src.sha256, names_in(log.parsed)});
    }
    return r;
}

} // namespace eb::report
