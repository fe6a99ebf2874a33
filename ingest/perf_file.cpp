#include "ingest/perf_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <system_error>
#include <unistd.h>
#include <unordered_map>
#include <zstd.h>

#include "sys/io.h"

namespace eb::ingest::perf {

namespace {

constexpr uint64_t kMagic = 0x32454c4946524550ull;  // "PERFILE2" read as a little-endian u64
constexpr uint64_t kMagicSwapped = 0x50455246494c4532ull;
constexpr uint64_t kFileHeaderBytes = 104;
constexpr uint64_t kPipeHeaderBytes = 16;
constexpr uint32_t kAttrSizeVer0 = 64;  // the first perf_event_attr: up to config2
constexpr size_t kMaxAttrs = 4096;
constexpr uint64_t kMaxIds = 1u << 20;
// The tracing data (event formats, kallsyms) is megabytes; a corrupt size
// must not make the reader allocate gigabytes.
constexpr uint64_t kMaxTracingBytes = 256ull << 20;
constexpr size_t kMaxUnpackedBytes = 64u << 20;  // one compressed record unpacked (perf's: its mmap size)
constexpr size_t kChunk = 256u << 10;
constexpr uint64_t kMaxDense = 1u << 16;  // stays in L2 while it is parsed

// Feature bits (perf's header.h, HEADER_*): 1 to 32 are known; a newer
// perf's feature could change how the data reads, so one is not guessed at.
constexpr int kFeatTracingData = 1, kFeatDirFormat = 24, kFeatCompressed = 27, kFeatLastKnown = 32;

uint16_t u16(const uint8_t* p) { uint16_t v; std::memcpy(&v, p, 2); return v; }
uint32_t u32(const uint8_t* p) { uint32_t v; std::memcpy(&v, p, 4); return v; }
uint64_t u64(const uint8_t* p) { uint64_t v; std::memcpy(&v, p, 8); return v; }

[[noreturn]] void bad(const std::string& what) { throw FormatError(what); }

void pread_exact(int fd, void* to, size_t n, uint64_t off, const char* what) {
    auto* p = static_cast<uint8_t*>(to);
    while (n > 0) {
        ssize_t got = ::pread(fd, p, n, off_t(off));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw std::system_error(errno, std::generic_category(), what);
        if (got == 0) bad(fmt::format("cut short: {} at byte {} is past the end", what, off));
        p += got, n -= size_t(got), off += uint64_t(got);
    }
}

Attr parse_attr(const uint8_t* p, size_t room, uint64_t at) {
    uint32_t size = u32(p + 4);
    if (size < kAttrSizeVer0 || size > room)
        bad(fmt::format("the attribute at byte {} says it is {} bytes (perf writes {} to {})", at, size, kAttrSizeVer0,
                        room));
    Attr a{u32(p), u64(p + 8), u64(p + 24), u64(p + 32), {}};
    uint64_t st = a.sample_type;
    if (st & (kSampleRead | kSampleCallchain)) return a;
    int pos = 0;
    auto field = [&](uint64_t bit, int size) {
        int here = (st & bit) ? pos : -1;
        pos += (st & bit) ? size : 0;
        return here;
    };
    field(kSampleIdentifier, 8), field(kSampleIp, 8);
    a.tid_at = field(kSampleTid, 8), a.time_at = field(kSampleTime, 8);
    field(kSampleAddr, 8), field(kSampleId, 8), field(kSampleStreamId, 8);
    a.cpu_at = field(kSampleCpu, 8);
    field(kSamplePeriod, 8);
    a.raw_at = field(kSampleRaw, 4);
    return a;
}

} // namespace

// Sequential reads of [pos, end) through one buffer that only grows for a
// record bigger than it.
class Stream {
public:
    void open(int fd, uint64_t pos, uint64_t end) { fd_ = fd, pos_ = pos, end_ = end, buf_.resize(kChunk); }
    size_t avail() const { return tail_ - head_; }
    const uint8_t* data() const { return buf_.data() + head_; }
    uint64_t pos() const { return pos_; }
    void consume(size_t n) { head_ += n, pos_ += n; }

    // True once n bytes are buffered; false at the end with fewer.
    bool fill(size_t n) {
        while (avail() < n && !eof_) {
            if (head_ > 0) {
                std::memmove(buf_.data(), buf_.data() + head_, avail());
                tail_ -= head_, head_ = 0;
            }
            if (buf_.size() < n) buf_.resize(n);
            uint64_t left = end_ - pos_ - avail();
            size_t want = size_t(std::min<uint64_t>(buf_.size() - tail_, left));
            ssize_t got = want == 0 ? 0 : ::read(fd_, buf_.data() + tail_, want);
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) throw std::system_error(errno, std::generic_category(), "reading the data");
            if (got == 0) eof_ = true;
            tail_ += size_t(got);
        }
        return avail() >= n;
    }

    void skip(uint64_t n) {
        while (n > 0) {
            if (!fill(1)) bad(fmt::format("cut short at byte {}: {} bytes of a record are missing", pos_, n));
            size_t k = size_t(std::min<uint64_t>(n, avail()));
            consume(k), n -= k;
        }
    }

private:
    int fd_ = -1;
    uint64_t pos_ = 0, end_ = 0;
    std::vector<uint8_t> buf_;
    size_t head_ = 0, tail_ = 0;
    bool eof_ = false;
};

struct Reader::Impl {
    sys::Fd fd;
    uint64_t file_size = 0;
    bool pipe = false;
    std::vector<Attr> attrs;
    std::unordered_map<uint64_t, size_t> by_id;
    std::vector<uint32_t> dense;      // by id - dense_base, when the ids span less than kMaxDense
    bool dense_stale = false;
    uint64_t dense_base = 0;
    Stream in;
    size_t to_consume = 0;             // the last record returned, still in the buffer
    std::vector<uint8_t> tracing;      // file mode: returned before the first record
    bool tracing_pending = false;
    ZSTD_DCtx* zstd = nullptr;
    std::vector<uint8_t> unpacked;     // records of compressed records, not yet returned
    size_t uhead = 0;
    uint64_t compressed_at = 0;

    ~Impl() { ZSTD_freeDCtx(zstd); }

    void add_attr(Attr a) {
        if (attrs.size() >= kMaxAttrs) bad(fmt::format("more than {} attributes", kMaxAttrs));
        if (a.ids.size() > kMaxIds - by_id.size()) bad(fmt::format("more than {} sample ids in all", kMaxIds));
        for (uint64_t id : a.ids) by_id.emplace(id, attrs.size());
        attrs.push_back(std::move(a));
        dense_stale = true;  // rebuilt at the next sample, not once per attribute
    }

    // perf numbers the ids from one counter, so they mostly span a small
    // range: then a sample's attribute is an index, not a hash lookup.
    void dense_ids() {
        dense_stale = false;
        dense.clear();
        if (by_id.empty()) return;
        uint64_t min = UINT64_MAX, max = 0;
        for (const auto& [id, index] : by_id) min = std::min(min, id), max = std::max(max, id);
        if (max - min >= kMaxDense) return;
        dense_base = min;
        dense.assign(max - min + 1, UINT32_MAX);
        for (const auto& [id, index] : by_id) dense[id - min] = uint32_t(index);
    }

    void read_file_header(const uint8_t* h) {
        if (u64(h + 8) != kFileHeaderBytes)
            bad(fmt::format("a file header of {} bytes, not perf's {}", u64(h + 8), kFileHeaderBytes));
        uint64_t attr_size = u64(h + 16), attrs_off = u64(h + 24), attrs_len = u64(h + 32);
        uint64_t data_off = u64(h + 40), data_len = u64(h + 48);
        auto inside = [&](uint64_t off, uint64_t len, const char* what) {
            if (off > file_size || len > file_size - off)
                bad(fmt::format("cut short: the {} (bytes {} to {}) end past the file's {} bytes", what, off,
                                off + len, file_size));
        };
        inside(attrs_off, attrs_len, "attributes");
        inside(data_off, data_len, "data section");
        if (attr_size < kAttrSizeVer0 + 16 || attr_size > 4096 || attrs_len % attr_size != 0)
            bad(fmt::format("attribute entries of {} bytes do not divide the {} bytes of attributes", attr_size,
                            attrs_len));
        read_attrs(attrs_off, attrs_len / attr_size, attr_size);
        read_features(h + 72, data_off + data_len);
        in.open(fd.get(), data_off, data_off + data_len);
        if (::lseek(fd.get(), off_t(data_off), SEEK_SET) < 0)
            throw std::system_error(errno, std::generic_category(), "seeking to the data");
    }

    void read_attrs(uint64_t off, uint64_t n, uint64_t attr_size) {
        if (n > kMaxAttrs) bad(fmt::format("{} attributes, more than {}", n, kMaxAttrs));
        std::vector<uint8_t> e(attr_size);
        for (uint64_t i = 0; i < n; ++i) {
            uint64_t at = off + i * attr_size;
            pread_exact(fd.get(), e.data(), e.size(), at, "an attribute");
            Attr a = parse_attr(e.data(), attr_size - 16, at);
            uint64_t ids_off = u64(e.data() + attr_size - 16), ids_len = u64(e.data() + attr_size - 8);
            if (ids_len % 8 != 0 || ids_len / 8 > kMaxIds || ids_off > file_size || ids_len > file_size - ids_off)
                bad(fmt::format("the ids of the attribute at byte {} (bytes {} to {}) are not in the file", at,
                                ids_off, ids_off + ids_len));
            a.ids.resize(ids_len / 8);
            if (ids_len) pread_exact(fd.get(), a.ids.data(), ids_len, ids_off, "an attribute's ids");
            add_attr(std::move(a));
        }
    }

    void read_features(const uint8_t* bits, uint64_t table) {
        for (int feat = 0, k = 0; feat < 256; ++feat) {
            if (!((u64(bits + 8 * (feat / 64)) >> (feat % 64)) & 1)) continue;
            if (feat == 0 || feat > kFeatLastKnown)
                bad(fmt::format("feature bit {} is not one perf has defined up to HEADER_CPU_DOMAIN_INFO ({}): it "
                                "could change how the data reads, so this reader does not guess", feat,
                                kFeatLastKnown));
            if (feat == kFeatDirFormat) bad("a perf record --threads directory format: not read here (perf "
                                            "inject -i DIR -o FILE makes one file of it)");
            uint8_t sec[16];
            pread_exact(fd.get(), sec, 16, table + 16 * uint64_t(k++), "the feature table");
            uint64_t off = u64(sec), len = u64(sec + 8);
            if (off > file_size || len > file_size - off)
                bad(fmt::format("cut short: feature {} (bytes {} to {}) ends past the file", feat, off, off + len));
            if (feat == kFeatTracingData) {
                if (len > kMaxTracingBytes) bad(fmt::format("tracing data of {} bytes, more than {}", len,
                                                            kMaxTracingBytes));
                tracing.resize(len);
                pread_exact(fd.get(), tracing.data(), len, off, "the tracing data");
                tracing_pending = true;
            } else if (feat == kFeatCompressed) {
                uint8_t c[8];
                if (len < 8) bad("a compression feature shorter than its 8 bytes");
                pread_exact(fd.get(), c, 8, off, "the compression feature");
                if (u32(c + 4) != 1) bad(fmt::format("compressed with method {}: only zstd (1) is known", u32(c + 4)));
            }
        }
    }

    void read_pipe_attr(std::span<const uint8_t> body, uint64_t at) {
        if (body.size() < kAttrSizeVer0) bad(fmt::format("an attribute record at byte {} is cut", at));
        uint32_t size = u32(body.data() + 4);
        Attr a = parse_attr(body.data(), body.size(), at);
        if ((body.size() - size) % 8 != 0) bad(fmt::format("the attribute record at byte {} has a partial id", at));
        for (size_t i = size; i + 8 <= body.size(); i += 8) a.ids.push_back(u64(body.data() + i));
        add_attr(std::move(a));
    }

    // Appends a compressed record's records to `unpacked`.
    void unpack(std::span<const uint8_t> z, uint64_t at) {
        if (!zstd) zstd = ZSTD_createDCtx();
        if (!zstd) throw std::bad_alloc();
        if (uhead > 0) unpacked.erase(unpacked.begin(), unpacked.begin() + std::ptrdiff_t(uhead)), uhead = 0;
        ZSTD_inBuffer src{z.data(), z.size(), 0};
        while (src.pos < src.size) {
            size_t have = unpacked.size();
            if (have >= kMaxUnpackedBytes) bad(fmt::format("the compressed record at byte {} unpacks to more "
                                                           "than {} bytes", at, kMaxUnpackedBytes));
            unpacked.resize(have + kChunk);
            ZSTD_outBuffer dst{unpacked.data() + have, kChunk, 0};
            size_t rc = ZSTD_decompressStream(zstd, &dst, &src);
            unpacked.resize(have + dst.pos);
            if (ZSTD_isError(rc)) bad(fmt::format("the compressed record at byte {} does not unpack: {}", at,
                                                  ZSTD_getErrorName(rc)));
        }
        compressed_at = at;
    }

    // A whole record from `unpacked`, if one is there.
    bool from_unpacked(Record& r) {
        size_t left = unpacked.size() - uhead;
        if (left < 8) return false;
        const uint8_t* p = unpacked.data() + uhead;
        uint16_t size = u16(p + 6);
        if (size < 8) bad(fmt::format("a record of {} bytes inside the compressed record at byte {}", size,
                                      compressed_at));
        if (left < size) return false;
        uint32_t type = u32(p);
        if (type == kRecordCompressed || type == kRecordTracingData || type == kRecordAuxtrace ||
            type == kRecordHeaderAttr)
            bad(fmt::format("a record of type {} inside the compressed record at byte {}", type, compressed_at));
        r = {type, u16(p + 4), {p + 8, size_t(size) - 8}, compressed_at};
        uhead += size;
        return true;
    }

    bool next(Record& r);
};

bool Reader::Impl::next(Record& r) {
    in.consume(to_consume);
    to_consume = 0;
    if (tracing_pending) {
        tracing_pending = false;
        r = {kRecordTracingData, 0, tracing, 0};
        return true;
    }
    for (;;) {
        if (from_unpacked(r)) return true;
        uint64_t at = in.pos();
        if (!in.fill(8)) {
            if (in.avail() > 0) bad(fmt::format("cut short: a record header at byte {} is incomplete", at));
            if (unpacked.size() > uhead) bad(fmt::format("cut short: the compressed record at byte {} ends inside "
                                                         "a record", compressed_at));
            return false;
        }
        uint32_t type = u32(in.data());
        uint16_t size = u16(in.data() + 6);
        if (size < 8) bad(fmt::format("a record of {} bytes at byte {} (its header alone is 8)", size, at));
        if (!in.fill(size)) bad(fmt::format("cut short: the record at byte {} needs {} bytes", at, size));
        std::span<const uint8_t> body(in.data() + 8, size - 8);
        if (unpacked.size() > uhead && type != kRecordCompressed)
            bad(fmt::format("the compressed record at byte {} ends inside a record", compressed_at));
        if (type == kRecordCompressed) {
            unpack(body, at);
            in.consume(size);
        } else if (type == kRecordHeaderAttr && pipe) {
            read_pipe_attr(body, at);
            in.consume(size);
        } else if (type == kRecordTracingData && pipe) {
            if (body.size() < 4) bad(fmt::format("a tracing data record at byte {} is cut", at));
            uint64_t n = u32(body.data());
            if (n > kMaxTracingBytes) bad(fmt::format("tracing data of {} bytes, more than {}", n, kMaxTracingBytes));
            if (!in.fill(size + n)) bad(fmt::format("cut short: the tracing data at byte {} needs {} bytes", at, n));
            r = {type, 0, {in.data() + size, size_t(n)}, at};
            to_consume = size + n;
            return true;
        } else if (type == kRecordAuxtrace) {
            if (body.size() < 8) bad(fmt::format("an auxtrace record at byte {} is cut", at));
            uint64_t payload = u64(body.data());
            in.consume(size);
            in.skip(payload);
        } else {
            r = {type, u16(in.data() + 4), body, at};
            to_consume = size;
            return true;
        }
    }
}

Reader::Reader(const std::string& path) : impl_(std::make_unique<Impl>()) {
    auto& m = *impl_;
    m.fd = sys::open_regular(path);
    off_t end = ::lseek(m.fd.get(), 0, SEEK_END);
    if (end < 0) throw std::system_error(errno, std::generic_category(), "sizing the file");
    m.file_size = uint64_t(end);
    uint8_t h[kFileHeaderBytes] = {};
    pread_exact(m.fd.get(), h, 16, 0, "the file header");
    if (u64(h) == kMagicSwapped) bad("a big-endian perf.data (from a host of the other byte order): not read here");
    if (u64(h) != kMagic) bad("not a perf.data file (no PERFILE2 magic)");
    if (u64(h + 8) == kPipeHeaderBytes) {
        m.pipe = true;
        m.in.open(m.fd.get(), kPipeHeaderBytes, m.file_size);
        if (::lseek(m.fd.get(), off_t(kPipeHeaderBytes), SEEK_SET) < 0)
            throw std::system_error(errno, std::generic_category(), "seeking to the data");
        return;
    }
    pread_exact(m.fd.get(), h, kFileHeaderBytes, 0, "the file header");
    m.read_file_header(h);
}

Reader::~Reader() = default;
bool Reader::pipe_mode() const { return impl_->pipe; }
const std::vector<Attr>& Reader::attrs() const { return impl_->attrs; }
bool Reader::next(Record& r) { return impl_->next(r); }

size_t Reader::attr_of(const Record& r) const {
    const auto& attrs = impl_->attrs;
    if (attrs.empty()) bad(fmt::format("a sample at byte {} before any attribute", r.offset));
    if (attrs.size() == 1 && !(attrs[0].sample_type & kSampleIdentifier)) return 0;
    if (!(attrs[0].sample_type & kSampleIdentifier))
        bad("several attributes, and samples without PERF_SAMPLE_IDENTIFIER to tell them apart");
    if (r.body.size() < 8) bad(fmt::format("the sample at byte {} is too short for its id", r.offset));
    uint64_t id = u64(r.body.data());
    if (impl_->dense_stale) impl_->dense_ids();
    const auto& dense = impl_->dense;
    if (id - impl_->dense_base < dense.size() && dense[id - impl_->dense_base] != UINT32_MAX &&
        (attrs[dense[id - impl_->dense_base]].sample_type & kSampleIdentifier))
        return dense[id - impl_->dense_base];
    auto it = impl_->by_id.find(id);
    if (it == impl_->by_id.end())
        bad(fmt::format("the sample at byte {} has id {}, which no attribute has", r.offset, id));
    if (!(attrs[it->second].sample_type & kSampleIdentifier))
        bad(fmt::format("attribute {} has no PERF_SAMPLE_IDENTIFIER while others do", it->second));
    return it->second;
}

void Reader::sample(const Record& r, const Attr& a, Sample& s) const {
    const uint8_t* p = r.body.data();
    size_t n = r.body.size(), at = 0;
    if (a.raw_at >= 0 && a.tid_at >= 0 && a.time_at >= 0 && a.cpu_at >= 0 && n >= size_t(a.raw_at) + 4) {
        // The common layout, at offsets fixed per attribute.
        uint32_t len = u32(p + a.raw_at);
        if (len <= n - size_t(a.raw_at) - 4) {
            s.pid = u32(p + a.tid_at), s.tid = u32(p + a.tid_at + 4);
            s.time = u64(p + a.time_at);
            s.cpu = u32(p + a.cpu_at);
            s.raw = {p + a.raw_at + 4, len};
            return;
        }
    }
    auto take = [&](size_t k) {
        if (n - at < k) bad(fmt::format("the sample at byte {} is shorter than its attribute's sample_type says",
                                        r.offset));
        const uint8_t* q = p + at;
        at += k;
        return q;
    };
    uint64_t st = a.sample_type;
    if (st & kSampleIdentifier) s.id = u64(take(8));
    if (st & kSampleIp) take(8);
    if (st & kSampleTid) s.pid = u32(take(4)), s.tid = u32(take(4));
    if (st & kSampleTime) s.time = u64(take(8));
    if (st & kSampleAddr) take(8);
    if (st & kSampleId) take(8);
    if (st & kSampleStreamId) take(8);
    if (st & kSampleCpu) s.cpu = u32(take(8));
    if (st & kSamplePeriod) take(8);
    if (st & kSampleRead) {
        uint64_t rf = a.read_format;
        size_t per = 8 * (1 + !!(rf & kReadId) + !!(rf & kReadLost));
        size_t times = 8 * (!!(rf & kReadEnabled) + !!(rf & kReadRunning));
        if (rf & kReadGroup) {
            uint64_t nr = u64(take(8));
            take(times);
            if (nr > n / per) take(n);  // more values than the sample has room for: cut
            take(size_t(nr) * per);
        } else {
            take(per + times);
        }
    }
    if (st & kSampleCallchain) {
        uint64_t nr = u64(take(8));
        if (nr > n / 8) take(n);
        take(size_t(nr) * 8);
    }
    s.raw = {};
    if (st & kSampleRaw) {
        uint32_t len = u32(take(4));
        s.raw = {take(len), len};
    }
}

} // namespace eb::ingest::perf
