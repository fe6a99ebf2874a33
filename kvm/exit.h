// What one KVM_RUN ended with, decoded from kvm_run as kvm-ioctls'
// VcpuExit does: the VMM matches on a type instead of reading the union.
// Spans and references point into the vCPU's kvm_run, so an exit is only
// valid until the next KVM_RUN; a handler answers through them.
#pragma once
#include <vector>
#include <cstdint>
#include <span>
#include <string>
#include <variant>

#include <linux/kvm.h>

namespace eb::kvm {

namespace exit {
// PIO: `data` holds `count` elements of `size` bytes (count > 1 for string
// I/O): the bytes to fill for In, the bytes written for Out. MMIO likewise.
struct IoIn { uint16_t port; uint8_t size; uint32_t count; std::span<uint8_t> data; };
struct IoOut { uint16_t port; uint8_t size; uint32_t count; std::span<uint8_t> data; };
struct MmioRead { uint64_t gpa; std::span<uint8_t> data; };
struct MmioWrite { uint64_t gpa; std::span<uint8_t> data; };
struct Hypercall { uint64_t nr; __u64& ret; };
struct RdMsr { uint32_t index; __u64& data; __u8& error; };
struct WrMsr { uint32_t index; uint64_t data; __u8& error; };
struct Hlt {};
struct Shutdown {};
struct FailEntry { uint64_t hardware_reason; };
struct InternalError {
    uint32_t suberror;
    std::vector<uint64_t> data;  // KVM's ndata words: what it could say about the failure
};
// KVM_RUN returned EINTR or EAGAIN: a signal or immediate_exit, no exit.
struct Interrupted {};
// Any other KVM_EXIT_* reason.
struct Other { uint32_t reason; };
} // namespace exit

using VcpuExit = std::variant<exit::IoIn, exit::IoOut, exit::MmioRead, exit::MmioWrite, exit::Hypercall,
                              exit::RdMsr, exit::WrMsr, exit::Hlt, exit::Shutdown, exit::FailEntry,
                              exit::InternalError, exit::Interrupted, exit::Other>;

// Decodes kvm_run after a successful KVM_RUN.
VcpuExit decode_exit(kvm_run& run);

// The bytes of a KVM_EXIT_IO (all `count` elements) or KVM_EXIT_MMIO exit,
// inside kvm_run: what decode_exit's spans hold, for a VMM that reads
// kvm_run itself on its hot path.
inline std::span<uint8_t> io_data(kvm_run& run) {
    return {reinterpret_cast<uint8_t*>(&run) + run.io.data_offset, size_t(run.io.size) * run.io.count};
}
inline std::span<uint8_t> mmio_data(kvm_run& run) {
    return {run.mmio.data, run.mmio.len < sizeof run.mmio.data ? run.mmio.len : sizeof run.mmio.data};
}

// The KVM_EXIT_* name without its prefix ("IO", "X86_WRMSR"), or nullptr for
// a reason this table does not know.
const char* exit_name(uint64_t reason);

} // namespace eb::kvm
