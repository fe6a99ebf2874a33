// The tracing data of a perf.data (perf's trace-event-read.c layout: magic,
// version, byte order, sizes, header_page, header_event, the ftrace and the
// event formats), its event formats parsed by libtraceevent, so a sample's
// raw tracepoint payload reads by field name at the offsets the recording
// kernel had, whatever its version.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace eb::ingest::perf {

struct Field {
    uint32_t offset = 0;
    uint32_t size = 0;  // 1, 2, 4 or 8 for the integers read here
};

struct EventFormat {
    std::string system, name;  // e.g. "kvm", "kvm_exit"
    int id = 0;
    std::optional<Field> field(std::string_view name) const;
    const void* handle = nullptr;  // libtraceevent's tep_event, owned by TracingData
};

class TracingData {
public:
    // Throws FormatError (perf_file.h) for tracing data that is cut, of the
    // other byte order, or whose kvm formats libtraceevent cannot parse.
    explicit TracingData(std::span<const uint8_t> data);
    ~TracingData();
    TracingData(const TracingData&) = delete;
    TracingData& operator=(const TracingData&) = delete;

    // The event with this id (a tracepoint attribute's config), or nullopt.
    std::optional<EventFormat> event(uint64_t id) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// An unsigned integer field of a raw payload; nullopt when the payload is
// shorter than the format says or the size is not 1, 2, 4 or 8. Inline: it
// runs a few times per sample.
inline std::optional<uint64_t> read_field(std::span<const uint8_t> raw, const Field& f) {
    if (f.offset > raw.size() || f.size > raw.size() - f.offset) return std::nullopt;
    const uint8_t* p = raw.data() + f.offset;
    uint64_t v = 0;
    switch (f.size) {
    case 1: return p[0];
    case 2: std::memcpy(&v, p, 2); return v;  // little-endian: the low bytes
    case 4: std::memcpy(&v, p, 4); return v;
    case 8: std::memcpy(&v, p, 8); return v;
    }
    return std::nullopt;
}

} // namespace eb::ingest::perf
