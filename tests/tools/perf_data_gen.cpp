// perf_data_gen: a perf.data of many kvm samples, made without /dev/kvm from
// a real one (the fixture recorded under the nested kvm_amd): its attributes,
// tracing data and features as they are, and its samples repeated, each copy
// later than the last, until there are --events of them. perf
// itself reads the result (tests/integration/perf_data_test.cpp checks
// that perf kvm stat report and exitbench agree on it row for row).
//
//   perf_data_gen TEMPLATE OUT --events N [--pipe] [--zstd] [--reverse]
//
// --pipe writes pipe mode (perf record -o -), --zstd the samples in
// compressed records (perf record -z), one zstd frame of whole records each;
// --reverse the samples of each round last first (perf's rounds allow any
// order within one), so threads' events are out of time order in the file.
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <string>
#include <vector>
#include <zstd.h>

#include "ingest/perf_file.h"

namespace perf = eb::ingest::perf;

namespace {

uint64_t u64(const uint8_t* p) { uint64_t v; std::memcpy(&v, p, 8); return v; }

struct Template {
    std::vector<uint8_t> file;
    uint64_t data_off = 0, data_len = 0;
    std::map<int, std::vector<uint8_t>> features;  // by bit
    struct Rec { uint32_t type; std::vector<uint8_t> bytes; size_t time_at; };  // time_at: 0 for none
    std::vector<Rec> recs;
    uint64_t first = UINT64_MAX, last = 0;
};

Template load(const std::string& path) {
    Template t;
    std::ifstream f(path, std::ios::binary);
    t.file.assign(std::istreambuf_iterator<char>(f), {});
    const uint8_t* h = t.file.data();
    t.data_off = u64(h + 40), t.data_len = u64(h + 48);
    uint64_t table = t.data_off + t.data_len;
    for (int bit = 0, k = 0; bit < 256; ++bit)
        if ((u64(h + 72 + 8 * (bit / 64)) >> (bit % 64)) & 1) {
            const uint8_t* s = h + table + 16 * k++;
            t.features[bit].assign(h + u64(s), h + u64(s) + u64(s + 8));
        }
    perf::Reader r(path);
    perf::Record rec;
    while (r.next(rec)) {
        if (rec.offset == 0) continue;  // the tracing data, from its feature
        Template::Rec out{rec.type, {}, 0};
        out.bytes.assign(rec.body.data() - 8, rec.body.data() + rec.body.size());
        if (rec.type == perf::kRecordSample) {
            perf::Sample s;
            const perf::Attr& a = r.attrs()[r.attr_of(rec)];
            r.sample(rec, a, s);
            uint64_t st = a.sample_type;
            out.time_at = 8 + 8 * (!!(st & perf::kSampleIdentifier) + !!(st & perf::kSampleIp) +
                                   !!(st & perf::kSampleTid));
            t.first = std::min(t.first, s.time), t.last = std::max(t.last, s.time);
        }
        t.recs.push_back(std::move(out));
    }
    return t;
}

class Out {
public:
    Out(const std::string& path, bool zstd) : f_(path, std::ios::binary | std::ios::trunc), zstd_(zstd) {}
    void raw(const void* p, size_t n) { f_.write(static_cast<const char*>(p), std::streamsize(n)), pos_ += n; }
    uint64_t pos() const { return pos_ + pending_.size(); }
    // A data record: as it is, or into the next compressed record.
    void record(const std::vector<uint8_t>& r) {
        if (!zstd_) return raw(r.data(), r.size());
        if (pending_.size() + r.size() > 32768) flush();
        pending_.insert(pending_.end(), r.begin(), r.end());
    }
    void flush() {
        if (pending_.empty()) return;
        std::vector<uint8_t> z(8 + ZSTD_compressBound(pending_.size()));
        size_t n = ZSTD_compress(z.data() + 8, z.size() - 8, pending_.data(), pending_.size(), 3);
        if (ZSTD_isError(n) || n + 8 > 65535) throw std::runtime_error("zstd did not compress a chunk");
        uint32_t type = perf::kRecordCompressed;
        uint16_t misc = 0, size = uint16_t(8 + n);
        std::memcpy(z.data(), &type, 4), std::memcpy(z.data() + 4, &misc, 2), std::memcpy(z.data() + 6, &size, 2);
        pending_.clear();
        raw(z.data(), 8 + n);
    }
    bool ok() const { return bool(f_); }

private:
    std::ofstream f_;
    bool zstd_;
    uint64_t pos_ = 0;
    std::vector<uint8_t> pending_;
};

void put_header(std::vector<uint8_t>& r, uint32_t type, size_t size) {
    uint16_t misc = 0, s = uint16_t(size);
    r.resize(8);
    std::memcpy(r.data(), &type, 4), std::memcpy(r.data() + 4, &misc, 2), std::memcpy(r.data() + 6, &s, 2);
}

// The samples, copied until there are `events` (fewer than the template's: its first ones). The records that end
// threads are left out: no copy's samples come from a thread perf saw exit.
uint64_t write_data(const Template& t, uint64_t events, bool reverse, Out& o) {
    uint64_t n = 0, shift = 0, span = t.last - t.first + 1000;
    std::vector<std::vector<uint8_t>> round;  // --reverse: this round's samples, written last first
    auto end_round = [&] {
        for (auto it = round.rbegin(); it != round.rend(); ++it) o.record(*it);
        round.clear();
    };
    for (int copy = 0; n < events; ++copy, shift += span) {
        for (const auto& r : t.recs) {
            if (r.type == 4 /* EXIT */) continue;
            if (r.type != perf::kRecordSample && r.type != perf::kRecordFinishedRound && copy > 0) continue;
            if (r.type == perf::kRecordFinishedRound) end_round();
            if (!r.time_at) {
                o.record(r.bytes);
                continue;
            }
            auto b = r.bytes;
            uint64_t time = u64(b.data() + r.time_at) + shift;
            std::memcpy(b.data() + r.time_at, &time, 8);
            if (reverse) round.push_back(std::move(b));
            else o.record(b);
            if (++n == events) break;
        }
    }
    end_round();
    o.flush();
    return n;
}

constexpr int kFeatTracing = 1, kFeatBuildId = 2, kFeatCompressed = 27;

std::map<int, std::vector<uint8_t>> features_of(const Template& t, bool zstd) {
    auto features = t.features;
    if (zstd) {  // version, type (zstd), level, ratio, the unpacked size a record stays under
        uint32_t c[5] = {0, 1, 3, 5, 1u << 16};
        features[kFeatCompressed].assign(reinterpret_cast<uint8_t*>(c), reinterpret_cast<uint8_t*>(c) + 20);
    }
    return features;
}

// File mode: the template's header, ids and attributes, the new data, then
// the feature table and sections after it. Returns the header to patch in.
std::vector<uint8_t> write_file(const Template& t, uint64_t events, bool zstd, bool reverse, Out& o) {
    std::vector<uint8_t> head(t.file.begin(), t.file.begin() + std::ptrdiff_t(t.data_off));
    o.raw(head.data(), head.size());
    write_data(t, events, reverse, o);
    uint64_t len = o.pos() - t.data_off;
    auto features = features_of(t, zstd);
    uint64_t off = o.pos() + 16 * features.size();
    std::vector<uint8_t> table;
    uint64_t bits[4] = {};
    for (const auto& [bit, bytes] : features) {
        uint64_t sec[2] = {off, bytes.size()};
        table.insert(table.end(), reinterpret_cast<uint8_t*>(sec), reinterpret_cast<uint8_t*>(sec) + 16);
        off += bytes.size();
        bits[bit / 64] |= 1ull << (bit % 64);
    }
    o.raw(table.data(), table.size());
    for (const auto& [bit, bytes] : features) o.raw(bytes.data(), bytes.size());
    head.resize(104);
    std::memcpy(head.data() + 48, &len, 8);
    std::memcpy(head.data() + 72, bits, 32);
    return head;
}

// Pipe mode: attribute, feature and tracing data records, then the data.
void write_pipe(const Template& t, uint64_t events, bool zstd, bool reverse, Out& o) {
    const uint8_t* h = t.file.data();
    uint64_t magic = u64(h), sixteen = 16;
    o.raw(&magic, 8), o.raw(&sixteen, 8);
    uint64_t attr_size = u64(h + 16), attrs = u64(h + 24), n = u64(h + 32) / attr_size;
    for (uint64_t i = 0; i < n; ++i) {
        const uint8_t* a = h + attrs + i * attr_size;
        uint32_t size;
        std::memcpy(&size, a + 4, 4);
        const uint8_t* ids = h + u64(a + attr_size - 16);
        uint64_t ids_len = u64(a + attr_size - 8);
        std::vector<uint8_t> r;
        put_header(r, perf::kRecordHeaderAttr, 8 + size + ids_len);
        r.insert(r.end(), a, a + size);
        r.insert(r.end(), ids, ids + ids_len);
        o.raw(r.data(), r.size());
    }
    for (const auto& [bit, bytes] : features_of(t, zstd)) {
        if (bit == kFeatTracing || bit == kFeatBuildId || bytes.size() > 60000) continue;
        std::vector<uint8_t> r;
        put_header(r, 80 /* HEADER_FEATURE */, 16 + bytes.size());
        uint64_t feat = uint64_t(bit);
        r.insert(r.end(), reinterpret_cast<uint8_t*>(&feat), reinterpret_cast<uint8_t*>(&feat) + 8);
        r.insert(r.end(), bytes.begin(), bytes.end());
        o.raw(r.data(), r.size());
    }
    auto tracing = t.features.at(kFeatTracing);
    tracing.resize((tracing.size() + 7) / 8 * 8);
    std::vector<uint8_t> r;
    put_header(r, perf::kRecordTracingData, 16);
    uint32_t sz[2] = {uint32_t(tracing.size()), 0};
    r.insert(r.end(), reinterpret_cast<uint8_t*>(sz), reinterpret_cast<uint8_t*>(sz) + 8);
    o.raw(r.data(), r.size());
    o.raw(tracing.data(), tracing.size());
    write_data(t, events, reverse, o);
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    std::string in, out;
    uint64_t events = 0;
    bool pipe = false, zstd = false, reverse = false;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--events" && i + 1 < args.size()) events = std::stoull(args[++i]);
        else if (args[i] == "--pipe") pipe = true;
        else if (args[i] == "--zstd") zstd = true;
        else if (args[i] == "--reverse") reverse = true;
        else if (in.empty()) in = args[i];
        else if (out.empty()) out = args[i];
        else in.clear(), i = args.size();
    }
    if (in.empty() || out.empty() || events == 0) {
        std::fputs("usage: perf_data_gen TEMPLATE OUT --events N [--pipe] [--zstd] [--reverse]\n", stderr);
        return 2;
    }
    try {
        Template t = load(in);
        std::vector<uint8_t> head;
        {
            Out o(out, zstd);
            if (pipe) write_pipe(t, events, zstd, reverse, o);
            else head = write_file(t, events, zstd, reverse, o);
            if (!o.ok()) throw std::runtime_error("cannot write " + out);
        }
        if (!head.empty()) {  // the header last: the data's length and the features are known now
            std::fstream f(out, std::ios::binary | std::ios::in | std::ios::out);
            f.write(reinterpret_cast<const char*>(head.data()), std::streamsize(head.size()));
            if (!f) throw std::runtime_error("cannot write " + out);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "perf_data_gen: %s\n", e.what());
        return 1;
    }
    return 0;
}
