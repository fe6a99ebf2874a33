// exitbench's trace file: a self-describing header, then the Event records
// as a flat array, so reading is one bulk copy.
//
// Layout (version 1, little-endian, all offsets in bytes):
//   0   char[8]  magic "EBTRACE\0"
//   8   u32      version (1)
//   12  u32      header_bytes: offset of the first record (multiple of 8)
//   16  u32      record_bytes: sizeof(Event) (40)
//   20  u32      reserved, 0
//   24  u64      record_count
//   32  u64      lost_events (total the recorder knows were lost)
//   40  str isa ("vmx", "svm" or "unknown"), str backend, str cpu_model,
//       u32 n, n x str tracepoints available, u32 n, n x u32 pids,
//       zero padding up to header_bytes.
//       (str = u32 length <= 4096 + that many printable ASCII bytes, no NUL)
//   header_bytes: record_count x Event
// The file size must be exactly header_bytes + record_count * 40.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "profile/event.h"
#include "sys/file.h"

namespace eb::profile {

inline constexpr uint32_t kTraceVersion = 1;
// Sanity limits a reader enforces, so a corrupt length cannot make it allocate
// or scan gigabytes.
inline constexpr uint32_t kMaxTraceString = 4096;
inline constexpr uint32_t kMaxTracepoints = 1024;
inline constexpr uint32_t kMaxPids = 65536;
inline constexpr uint32_t kMaxHeaderBytes = 1u << 20;

struct TraceHeader {
    std::string isa = "unknown";  // "vmx", "svm" or "unknown"
    std::string backend;          // e.g. "kvm_intel", "kvm_amd", "kvm_pvm"
    std::string cpu_model;
    std::vector<std::string> tracepoints;  // the kvm tracepoints that existed on the host, e.g. "kvm_exit"
    std::vector<uint32_t> pids;            // the processes recorded
    uint64_t record_count = 0;             // set by the writer
    uint64_t lost_events = 0;              // at least the sum of the Lost records' counts
};

struct TraceFile {
    TraceHeader header;
    std::vector<Event> events;
};

// Both throw std::runtime_error with one line naming what is wrong (bad
// magic, version, truncated header or record, count/size mismatch, absurd
// string lengths, unknown event type). read_trace reads in large chunks
// straight into the event array.
TraceFile read_trace(const std::string& path);
TraceFile read_trace_bytes(std::span<const uint8_t> bytes);

// Streams events to `path` through a sys::OutputFile: only finish()
// rewrites the counts in the header and publishes the file (renamed over a
// regular file, copied into a device or FIFO). Destroyed unfinished, it
// leaves `path` untouched and no temporary file behind. Throws std::runtime_error on I/O errors and
// InputError on a header or event no reader would accept.
class TraceWriter {
public:
    TraceWriter(const std::string& path, const TraceHeader& header);
    ~TraceWriter();
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    void add(const Event& e);
    // Losses the recorder learned of outside Lost records (e.g. ring-buffer
    // overrun totals); the header gets max(this, sum of Lost records).
    void set_lost_events(uint64_t total);
    uint64_t count() const { return count_ + buf_.size(); }
    void finish();

private:
    void flush();
    void write_at(const void* data, size_t n, uint64_t off);

    std::string path_;
    std::unique_ptr<sys::OutputFile> out_;  // null once finished or failed
    std::vector<Event> buf_;
    uint64_t off_ = 0;  // where the next record goes
    uint64_t count_ = 0;
    uint64_t lost_records_ = 0;
    uint64_t lost_total_ = 0;
};

} // namespace eb::profile
