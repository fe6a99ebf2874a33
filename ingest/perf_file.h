// perf.data read from its documented format (the kernel's
// tools/perf/Documentation/perf.data-file-format.txt), without perf: the file
// header, the attributes with their sample ids, the feature sections and the
// data section's records, streamed through a fixed buffer, so a file of any
// size takes the same memory. File mode and pipe mode; zstd-compressed
// records (perf record -z) are unpacked on the way. Only little-endian files:
// a big-endian one is refused, not misread.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace eb::ingest::perf {

// One line: what is wrong and, where it helps, at which byte offset.
struct FormatError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// perf_event_attr's sample_type and read_format bits this reader knows.
enum : uint64_t {
    kSampleIp = 1u << 0, kSampleTid = 1u << 1, kSampleTime = 1u << 2, kSampleAddr = 1u << 3,
    kSampleRead = 1u << 4, kSampleCallchain = 1u << 5, kSampleId = 1u << 6, kSampleCpu = 1u << 7,
    kSamplePeriod = 1u << 8, kSampleStreamId = 1u << 9, kSampleRaw = 1u << 10, kSampleIdentifier = 1u << 16,
};
enum : uint64_t { kReadEnabled = 1, kReadRunning = 2, kReadId = 4, kReadGroup = 8, kReadLost = 16 };

// Record types (PERF_RECORD_*) the reader and its users look at.
enum : uint32_t {
    kRecordLost = 2, kRecordSample = 9, kRecordHeaderAttr = 64, kRecordTracingData = 66,
    kRecordFinishedRound = 68, kRecordAuxtrace = 71, kRecordCompressed = 81,
};
inline constexpr uint32_t kAttrTypeTracepoint = 2;

struct Attr {
    uint32_t type = 0;
    uint64_t config = 0;  // for a tracepoint: its event id (the raw data's common_type)
    uint64_t sample_type = 0;
    uint64_t read_format = 0;
    std::vector<uint64_t> ids;  // the sample ids its samples carry
    // Where TID, TIME, CPU and RAW's size sit in its samples, when no
    // variable-length field (READ, CALLCHAIN) comes before them; else -1.
    int tid_at = -1, time_at = -1, cpu_at = -1, raw_at = -1;
};

// A record of the data section: the bytes after its 8-byte header. For
// kRecordTracingData, the tracing data itself (in file mode it comes first,
// from its feature section, so both modes read alike).
struct Record {
    uint32_t type = 0;
    uint16_t misc = 0;
    std::span<const uint8_t> body;  // valid until the next call of next()
    uint64_t offset = 0;            // where it starts in the file (in a compressed record: that record's)
};

// The fields of a sample the kvm report reads.
struct Sample {
    uint64_t id = 0;
    uint32_t pid = 0, tid = 0, cpu = 0;
    uint64_t time = 0;
    std::span<const uint8_t> raw;
};

class Reader {
public:
    // Opens `path` and reads its header (and, in file mode, its attributes and
    // feature table). Throws FormatError for a file that is not a readable
    // little-endian perf.data, std::system_error when it cannot be read.
    explicit Reader(const std::string& path);
    ~Reader();
    Reader(const Reader&) = delete;
    Reader& operator=(const Reader&) = delete;

    bool pipe_mode() const;
    // The attributes so far (pipe mode adds them as HEADER_ATTR records pass).
    const std::vector<Attr>& attrs() const;
    // The next record, or false at the end of the data. Throws FormatError for
    // a record that is cut, too short, or out of the data section.
    bool next(Record& r);
    // The index in attrs() of the attribute a sample belongs to (by its id).
    // Throws FormatError for an id no attribute has.
    size_t attr_of(const Record& r) const;
    // The sample's fields, as its attribute `a` lays them out. Throws
    // FormatError for a sample shorter than a's sample_type says.
    void sample(const Record& r, const Attr& a, Sample& s) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace eb::ingest::perf
