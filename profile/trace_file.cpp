#include "profile/trace_file.h"

#include <bit>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/file.h"
#include "sys/io.h"
#include "sys/error.h"
#include "profile/saturating.h"

namespace eb::profile {

static_assert(std::endian::native == std::endian::little, "the trace format is little-endian, as the host");

namespace {

constexpr char kMagic[8] = {'E', 'B', 'T', 'R', 'A', 'C', 'E', '\0'};
constexpr size_t kFixedBytes = 40;
constexpr size_t kCountOffset = 24;
constexpr size_t kChunkBytes = 64u << 20;  // big reads: one syscall per 64 MiB

[[noreturn]] void bad(const std::string& src, const std::string& msg) {
    throw InputError(src + ": " + msg);
}

uint32_t load_u32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

uint64_t load_u64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// Header strings end up in terminals and JSON: printable ASCII only.
bool printable(std::string_view s) {
    for (char c : s)
        if (c < 0x20 || c > 0x7e) return false;
    return true;
}

bool valid_isa(std::string_view isa) { return isa == "vmx" || isa == "svm" || isa == "unknown"; }

// The fixed 40-byte prefix.
struct Fixed {
    uint32_t header_bytes;
    uint64_t record_count;
    uint64_t lost;
};

Fixed parse_fixed(std::span<const uint8_t> b, uint64_t file_size, const std::string& src) {
    if (file_size == 0) bad(src, "empty file, not an exitbench trace");
    if (std::memcmp(b.data(), kMagic, std::min(b.size(), sizeof kMagic)) != 0)
        bad(src, "not an exitbench trace (bad magic)");
    if (b.size() < kFixedBytes)
        bad(src, "truncated header: " + std::to_string(b.size()) + " of " + std::to_string(kFixedBytes) + " bytes");
    uint32_t version = load_u32(b.data() + 8);
    if (version != kTraceVersion)
        bad(src, "unsupported trace version " + std::to_string(version) + " (this build reads " +
                     std::to_string(kTraceVersion) + ")");
    Fixed f{load_u32(b.data() + 12), load_u64(b.data() + 24), load_u64(b.data() + 32)};
    uint32_t record_bytes = load_u32(b.data() + 16);
    if (record_bytes != sizeof(Event))
        bad(src, "record size " + std::to_string(record_bytes) + ", expected " + std::to_string(sizeof(Event)));
    if (load_u32(b.data() + 20) != 0) bad(src, "reserved header field is not zero");
    if (f.header_bytes < kFixedBytes + 20 || f.header_bytes > kMaxHeaderBytes || f.header_bytes % 8 != 0)
        bad(src, "bad header size " + std::to_string(f.header_bytes));
    if (f.header_bytes > file_size)
        bad(src, "truncated header: " + std::to_string(file_size) + " bytes, header needs " +
                     std::to_string(f.header_bytes));
    return f;
}

// Reads the variable part of the header, every length checked before use.
class Cursor {
public:
    Cursor(std::span<const uint8_t> b, size_t pos, const std::string& src) : b_(b), pos_(pos), src_(src) {}

    uint32_t u32(const char* what) {
        if (b_.size() - pos_ < 4) overrun(what);
        uint32_t v = load_u32(b_.data() + pos_);
        pos_ += 4;
        return v;
    }

    std::string str(const char* what) {
        uint32_t n = u32(what);
        if (n > kMaxTraceString)
            bad(src_, std::string(what) + " length " + std::to_string(n) + " exceeds " +
                          std::to_string(kMaxTraceString));
        if (b_.size() - pos_ < n) overrun(what);
        std::string s(reinterpret_cast<const char*>(b_.data() + pos_), n);
        pos_ += n;
        if (!printable(s)) bad(src_, std::string(what) + " is not printable ASCII");
        return s;
    }

    size_t pos() const { return pos_; }

private:
    [[noreturn]] void overrun(const char* what) { bad(src_, std::string(what) + " runs past the header size"); }

    std::span<const uint8_t> b_;
    size_t pos_;
    const std::string& src_;
};

// `b` holds exactly the header (f.header_bytes bytes).
TraceHeader parse_fields(std::span<const uint8_t> b, const Fixed& f, const std::string& src) {
    TraceHeader h;
    h.record_count = f.record_count;
    h.lost_events = f.lost;
    Cursor c(b, kFixedBytes, src);
    h.isa = c.str("isa");
    if (!valid_isa(h.isa)) bad(src, "unknown isa '" + h.isa + "' (vmx, svm or unknown)");
    h.backend = c.str("backend");
    h.cpu_model = c.str("cpu model");
    uint32_t n = c.u32("tracepoint count");
    if (n > kMaxTracepoints)
        bad(src, std::to_string(n) + " tracepoints exceed the limit of " + std::to_string(kMaxTracepoints));
    h.tracepoints.reserve(n);
    for (uint32_t i = 0; i < n; ++i) h.tracepoints.push_back(c.str("tracepoint name"));
    n = c.u32("pid count");
    if (n > kMaxPids) bad(src, std::to_string(n) + " pids exceed the limit of " + std::to_string(kMaxPids));
    h.pids.reserve(n);
    for (uint32_t i = 0; i < n; ++i) h.pids.push_back(c.u32("pid"));
    size_t end = (c.pos() + 7) / 8 * 8;
    if (end != b.size())
        bad(src, "header size " + std::to_string(b.size()) + " does not match its fields (" + std::to_string(end) +
                     ")");
    for (size_t i = c.pos(); i < end; ++i)
        if (b[i] != 0) bad(src, "non-zero padding after the header fields");
    return h;
}

// The records must fill the rest of the file exactly.
void check_body(uint64_t file_size, const Fixed& f, const std::string& src) {
    uint64_t body = file_size - f.header_bytes;
    if (body % sizeof(Event) != 0)
        bad(src, "truncated last record: " + std::to_string(body % sizeof(Event)) + " stray bytes after record " +
                     std::to_string(body / sizeof(Event)));
    if (body / sizeof(Event) != f.record_count)
        bad(src, "record count " + std::to_string(f.record_count) + " does not match the file size (" +
                     std::to_string(body / sizeof(Event)) + " records)");
}

void check_events(const std::vector<Event>& ev, const std::string& src) {
    for (size_t i = 0; i < ev.size(); ++i) {
        auto t = static_cast<uint8_t>(ev[i].type);
        if (!valid_event_type(t))
            bad(src, "record " + std::to_string(i) + " has unknown event type " + std::to_string(t));
    }
}

// Reads exactly n bytes at offset off, or says why not.
void pread_all(int fd, void* dst, size_t n, uint64_t off, const std::string& src) {
    auto* p = static_cast<uint8_t*>(dst);
    while (n > 0) {
        ssize_t r = ::pread(fd, p, std::min(n, kChunkBytes), static_cast<off_t>(off));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) bad(src, std::string("read failed: ") + std::strerror(errno));
        if (r == 0) bad(src, "file shrank while reading");
        p += r;
        n -= static_cast<size_t>(r);
        off += static_cast<uint64_t>(r);
    }
}

void put_u32(std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }
void put_u64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }

void put_str(std::string& out, const std::string& s, const char* what) {
    if (s.size() > kMaxTraceString)
        throw InputError(std::string("trace header: ") + what + " longer than " +
                                    std::to_string(kMaxTraceString) + " bytes");
    if (!printable(s)) throw InputError(std::string("trace header: ") + what + " is not printable ASCII");
    put_u32(out, static_cast<uint32_t>(s.size()));
    out += s;
}

std::string encode_header(const TraceHeader& h) {
    if (!valid_isa(h.isa)) throw InputError("trace header: isa '" + h.isa + "' is not vmx, svm or unknown");
    if (h.tracepoints.size() > kMaxTracepoints) throw InputError("trace header: too many tracepoints");
    if (h.pids.size() > kMaxPids) throw InputError("trace header: too many pids");
    std::string out(kMagic, sizeof kMagic);
    put_u32(out, kTraceVersion);
    put_u32(out, 0);  // header_bytes, patched below
    put_u32(out, sizeof(Event));
    put_u32(out, 0);
    put_u64(out, 0);  // record_count and lost_events: finish() rewrites them
    put_u64(out, 0);
    put_str(out, h.isa, "isa");
    put_str(out, h.backend, "backend");
    put_str(out, h.cpu_model, "cpu model");
    put_u32(out, static_cast<uint32_t>(h.tracepoints.size()));
    for (const auto& t : h.tracepoints) put_str(out, t, "tracepoint name");
    put_u32(out, static_cast<uint32_t>(h.pids.size()));
    for (uint32_t p : h.pids) put_u32(out, p);
    out.resize((out.size() + 7) / 8 * 8, '\0');
    if (out.size() > kMaxHeaderBytes) throw InputError("trace header larger than 1 MiB");
    uint32_t n = static_cast<uint32_t>(out.size());
    std::memcpy(out.data() + 12, &n, 4);
    return out;
}

} // namespace

TraceFile read_trace_bytes(std::span<const uint8_t> bytes) {
    const std::string src = "trace";
    Fixed f = parse_fixed(bytes.first(std::min(bytes.size(), kFixedBytes)), bytes.size(), src);
    TraceFile t;
    t.header = parse_fields(bytes.first(f.header_bytes), f, src);
    check_body(bytes.size(), f, src);
    t.events.resize(f.record_count);
    if (f.record_count) std::memcpy(t.events.data(), bytes.data() + f.header_bytes, f.record_count * sizeof(Event));
    check_events(t.events, src);
    return t;
}

TraceFile read_trace(const std::string& path) {
    sys::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) bad(path, std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd.get(), &st) < 0) bad(path, std::string("cannot stat: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) bad(path, "not a regular file");
    auto size = static_cast<uint64_t>(st.st_size);

    uint8_t fixed[kFixedBytes];
    size_t n = static_cast<size_t>(std::min<uint64_t>(size, kFixedBytes));
    pread_all(fd.get(), fixed, n, 0, path);
    Fixed f = parse_fixed({fixed, n}, size, path);
    std::vector<uint8_t> head(f.header_bytes);
    pread_all(fd.get(), head.data(), head.size(), 0, path);
    TraceFile t;
    t.header = parse_fields(head, f, path);
    check_body(size, f, path);
    t.events.resize(f.record_count);
    pread_all(fd.get(), t.events.data(), f.record_count * sizeof(Event), f.header_bytes, path);
    check_events(t.events, path);
    return t;
}

TraceWriter::TraceWriter(const std::string& path, const TraceHeader& header) : path_(path) {
    std::string head = encode_header(header);
    // 0600 whatever the umask: with -a a trace holds every VM's exits, not only the user's.
    out_ = std::make_unique<sys::OutputFile>(path, 0600);
    write_at(head.data(), head.size(), 0);
    off_ = head.size();
    buf_.reserve(64 * 1024);
    lost_total_ = header.lost_events;
}

TraceWriter::~TraceWriter() = default;

void TraceWriter::write_at(const void* data, size_t n, uint64_t off) {
    if (int e = sys::pwrite_all(out_->fd(), data, n, off)) {
        auto out = std::move(out_);  // a failed writer takes no more events
        out->fail("write", e);
    }
}

void TraceWriter::add(const Event& e) {
    if (!out_) throw HostError("cannot write " + path_ + ": trace already finished or failed");
    auto t = static_cast<uint8_t>(e.type);
    if (!valid_event_type(t)) throw InputError("event type " + std::to_string(t) + " is not an EventType");
    if (e.type == EventType::Lost) lost_records_ = sat_add(lost_records_, e.a);
    buf_.push_back(e);
    if (buf_.size() == buf_.capacity()) flush();
}

void TraceWriter::set_lost_events(uint64_t total) { lost_total_ = total; }

void TraceWriter::flush() {
    if (buf_.empty()) return;
    write_at(buf_.data(), buf_.size() * sizeof(Event), off_);
    off_ += buf_.size() * sizeof(Event);
    count_ += buf_.size();
    buf_.clear();
}

void TraceWriter::finish() {
    if (!out_) throw HostError("cannot write " + path_ + ": trace already finished or failed");
    flush();
    uint64_t counts[2] = {count_, std::max(lost_total_, lost_records_)};
    write_at(counts, sizeof counts, kCountOffset);
    auto out = std::move(out_);
    out->commit();
}

} // namespace eb::profile
