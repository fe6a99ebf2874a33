#include "ingest/perf_tracing.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <traceevent/event-parse.h>
#include <vector>

#include "ingest/perf_file.h"

namespace eb::ingest::perf {

namespace {

// Reads the tracing data front to back, refusing anything past its end.
struct Cursor {
    std::span<const uint8_t> d;
    size_t at = 0;

    [[noreturn]] void cut(const char* what) const {
        throw FormatError(fmt::format("the tracing data is cut short in its {} (byte {} of {})", what, at, d.size()));
    }
    const uint8_t* take(uint64_t n, const char* what) {
        if (n > d.size() - at) cut(what);
        const uint8_t* p = d.data() + at;
        at += size_t(n);
        return p;
    }
    uint64_t u32(const char* what) { uint32_t v; std::memcpy(&v, take(4, what), 4); return v; }
    uint64_t u64(const char* what) { uint64_t v; std::memcpy(&v, take(8, what), 8); return v; }
    std::string str(const char* what) {
        const void* nul = std::memchr(d.data() + at, 0, d.size() - at);
        if (!nul) cut(what);
        size_t n = size_t(static_cast<const uint8_t*>(nul) - (d.data() + at));
        std::string s(reinterpret_cast<const char*>(take(n + 1, what)), n);
        return s;
    }
    void tag(std::string_view want, const char* what) {
        if (std::memcmp(take(want.size(), what), want.data(), want.size()) != 0)
            throw FormatError(fmt::format("the tracing data has no '{}' where perf writes it", what));
    }
};

constexpr uint64_t kMaxFormats = 100000;

bool all_of(std::string_view s, bool (*ok)(char)) { return !s.empty() && std::all_of(s.begin(), s.end(), ok); }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool ident(char c) { return digit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool decl(char c) { return ident(c) || c == ' ' || c == '*'; }

bool after(std::string_view& s, std::string_view prefix) {
    if (!s.starts_with(prefix)) return false;
    s.remove_prefix(prefix.size());
    return true;
}

// "\tfield:TYPE NAME[N];\toffset:N;\tsize:N;\tsigned:N;"
bool field_line(std::string_view l) {
    auto num_then = [&](std::string_view key) {
        if (!after(l, key)) return false;
        size_t semi = l.find(';');
        if (semi == l.npos || !all_of(l.substr(0, semi), digit) || semi > 9) return false;
        l.remove_prefix(semi + 1);
        return true;
    };
    if (!after(l, "\tfield:")) return false;
    size_t semi = l.find(';');
    if (semi == l.npos) return false;
    std::string_view d = l.substr(0, semi);
    if (size_t open = d.find('['); open != d.npos) {  // one array suffix, at the end
        if (d.back() != ']' || !std::all_of(d.begin() + open + 1, d.end() - 1, ident)) return false;
        d = d.substr(0, open);
    }
    if (!all_of(d, decl) || std::none_of(d.begin(), d.end(), ident)) return false;
    l.remove_prefix(semi + 1);
    return num_then("\toffset:") && num_then("\tsize:") && num_then("\tsigned:") && l.empty();
}

// Whether `text` (a format cut before its print fmt) is in the grammar the
// kernel writes: "name: N", "ID: N", "format:", then field lines and blank
// lines. libtraceevent 1.7 dereferences NULL on some malformed formats
// (perf_data_fuzz found two), so only these reach it.
bool well_formed(std::string_view text) {
    int line = 0;
    for (size_t at = 0; at < text.size(); ++line) {
        size_t nl = std::min(text.find('\n', at), text.size());
        std::string_view l = text.substr(at, nl - at);
        at = nl + 1;
        bool ok = line == 0   ? after(l, "name: ") && all_of(l, ident) && l.size() <= 128
                  : line == 1 ? after(l, "ID: ") && all_of(l, digit) && l.size() <= 9
                  : line == 2 ? l == "format:"
                              : l.empty() || field_line(l);
        if (!ok) return false;
    }
    return line > 3;
}

} // namespace

struct TracingData::Impl {
    tep_handle* tep = tep_alloc();
    ~Impl() { tep_free(tep); }
};

TracingData::TracingData(std::span<const uint8_t> data) : impl_(std::make_unique<Impl>()) {
    if (!impl_->tep) throw std::bad_alloc();
    Cursor c{data};
    c.tag(std::string_view("\x17\x08\x44tracing", 10), "magic");
    std::string version = c.str("version");
    uint8_t big = *c.take(1, "byte order");
    if (big) throw FormatError("big-endian tracing data (from a host of the other byte order): not read here");
    uint8_t long_size = *c.take(1, "long size");
    uint64_t page_size = c.u32("page size");
    if ((long_size != 4 && long_size != 8) || page_size == 0)
        throw FormatError(fmt::format("tracing data with a long of {} bytes and pages of {}", long_size, page_size));
    tep_handle* tep = impl_->tep;
    tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
    tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
    tep_set_long_size(tep, long_size);
    tep_set_page_size(tep, int(page_size));
    c.tag(std::string_view("header_page", 12), "header_page");
    c.take(c.u64("header_page size"), "header_page");
    c.tag(std::string_view("header_event", 13), "header_event");
    c.take(c.u64("header_event size"), "header_event");
    uint64_t ftrace = c.u32("ftrace format count");
    if (ftrace > kMaxFormats) c.cut("ftrace formats");
    for (uint64_t i = 0; i < ftrace; ++i) c.take(c.u64("ftrace format size"), "ftrace formats");
    uint64_t systems = c.u32("event system count");
    if (systems > kMaxFormats) c.cut("event systems");
    for (uint64_t s = 0; s < systems; ++s) {
        std::string sys = c.str("event system name");
        uint64_t n = c.u32("event format count");
        if (n > kMaxFormats) c.cut("event formats");
        for (uint64_t i = 0; i < n; ++i) {
            uint64_t size = c.u64("event format size");
            auto* fmt_text = reinterpret_cast<const char*>(c.take(size, "event formats"));
            // Only the name, id and fields, and only in the kernel's grammar:
            // libtraceevent 1.7 dereferences NULL on some malformed formats
            // (found by perf_data_fuzz), and the import reads fields, never
            // prints (without a print fmt the event is kept, flagged as not
            // printable). A format refused here or by libtraceevent is a
            // tracepoint the import does not know: its samples are left out.
            std::string_view text(fmt_text, size);
            text = text.substr(0, std::min(text.size(), text.find("\nprint fmt:") + 1));
            if (well_formed(text) && all_of(sys, ident)) tep_parse_event(tep, text.data(), text.size(), sys.c_str());
        }
    }
}

TracingData::~TracingData() = default;

std::optional<EventFormat> TracingData::event(uint64_t id) const {
    if (id > uint64_t(INT32_MAX)) return std::nullopt;
    tep_event* e = tep_find_event(impl_->tep, int(id));
    if (!e || !e->name || !e->system) return std::nullopt;
    return EventFormat{e->system, e->name, e->id, e};
}

std::optional<Field> EventFormat::field(std::string_view name) const {
    auto* e = static_cast<tep_event*>(const_cast<void*>(handle));
    tep_format_field* f = tep_find_field(e, std::string(name).c_str());
    if (!f || f->offset < 0 || f->size <= 0) return std::nullopt;
    return Field{uint32_t(f->offset), uint32_t(f->size)};
}

} // namespace eb::ingest::perf
