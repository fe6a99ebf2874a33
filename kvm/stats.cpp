#include "kvm/stats.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <unistd.h>

#include <linux/kvm.h>

#include "kvm/error.h"
#include "kvm/uapi.h"

namespace eb::kvm {

StatsLayout parse_stats_layout(std::span<const uint8_t> bytes) {
    kvm_stats_header h{};
    if (bytes.size() < sizeof h) throw HostError("stats fd: truncated header");
    std::memcpy(&h, bytes.data(), sizeof h);
    StatsLayout out;
    size_t id_len = h.name_size;
    if (h.id_offset + id_len > bytes.size() || h.name_size == 0 || h.name_size > 4096)
        throw HostError("stats fd: bad id or name size");
    const char* id = reinterpret_cast<const char*>(bytes.data() + h.id_offset);
    out.id.assign(id, strnlen(id, id_len));

    size_t desc_size = sizeof(uapi::StatsDesc) + h.name_size;
    if (h.desc_offset + uint64_t(h.num_desc) * desc_size > bytes.size())
        throw HostError("stats fd: descriptors past the end");
    uint32_t end = 0;
    for (uint32_t i = 0; i < h.num_desc; ++i) {
        uapi::StatsDesc d{};
        const uint8_t* p = bytes.data() + h.desc_offset + i * desc_size;
        std::memcpy(&d, p, sizeof d);
        const char* name = reinterpret_cast<const char*>(p + sizeof d);
        if (d.offset % 8) throw HostError("stats fd: misaligned offset");
        out.descs.push_back({std::string(name, strnlen(name, h.name_size)), d.flags, d.offset,
                             d.size});
        end = std::max<uint32_t>(end, d.offset + d.size * 8);
    }
    out.data_offset = h.data_offset;
    out.data_bytes = end;
    return out;
}

StatsFd::StatsFd(Fd fd) : fd_(std::move(fd)) {
    kvm_stats_header h{};
    if (::pread(fd_.get(), &h, sizeof h, 0) != static_cast<ssize_t>(sizeof h))
        throw Error("read stats header", errno ? errno : EIO);
    size_t head = std::max<uint64_t>(h.desc_offset + uint64_t(h.num_desc) *
                                         (sizeof(uapi::StatsDesc) + h.name_size),
                                     h.id_offset + h.name_size);
    if (head > (64u << 20)) throw HostError("stats fd: implausible header");
    std::vector<uint8_t> buf(head);
    if (::pread(fd_.get(), buf.data(), head, 0) != static_cast<ssize_t>(head))
        throw Error("read stats descriptors", errno ? errno : EIO);
    layout_ = parse_stats_layout(buf);
}

std::optional<size_t> StatsFd::find(std::string_view name) const {
    for (size_t i = 0; i < layout_.descs.size(); ++i)
        if (layout_.descs[i].name == name) return i;
    return std::nullopt;
}

std::vector<uint64_t> StatsFd::read() const {
    std::vector<uint64_t> block(layout_.data_bytes / 8);
    ssize_t want = static_cast<ssize_t>(block.size() * 8);
    if (::pread(fd_.get(), block.data(), want, layout_.data_offset) != want)
        throw Error("read stats data", errno ? errno : EIO);
    return block;
}

} // namespace eb::kvm
