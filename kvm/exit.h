// Reading an exit from kvm_run: the one way the VMM does it, the union read
// in place. A typed decode into a std::variant (kvm-ioctls' VcpuExit) cost
// 73-122 cycles per exit more on kvm_pvm against 25-49 for the bare loop
// (`exitbench_bench vmm`, before it was removed), so these helpers only bound
// what the raw read must not overrun.
#pragma once
#include <cstdint>
#include <span>

#include <linux/kvm.h>

namespace eb::kvm {

// The bytes of a KVM_EXIT_IO (all `count` elements, at data_offset) or
// KVM_EXIT_MMIO exit (at most mmio.data's 8 bytes), inside kvm_run: the
// bytes to fill for a read, those written for a write.
inline std::span<uint8_t> io_data(kvm_run& run) {
    return {reinterpret_cast<uint8_t*>(&run) + run.io.data_offset, size_t(run.io.size) * run.io.count};
}
inline std::span<uint8_t> mmio_data(kvm_run& run) {
    return {run.mmio.data, run.mmio.len < sizeof run.mmio.data ? run.mmio.len : sizeof run.mmio.data};
}
// KVM_EXIT_INTERNAL_ERROR's ndata words, which come from the kernel: never past the array.
inline std::span<const uint64_t> internal_error_data(const kvm_run& run) {
    size_t n = run.internal.ndata < std::size(run.internal.data) ? run.internal.ndata : std::size(run.internal.data);
    return {reinterpret_cast<const uint64_t*>(run.internal.data), n};
}

// The KVM_EXIT_* name without its prefix ("IO", "X86_WRMSR"), or nullptr for
// a reason this table does not know.
const char* exit_name(uint64_t reason);

} // namespace eb::kvm
