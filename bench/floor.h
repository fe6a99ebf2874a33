// The floor: the least the kernel allows for what exitbench's harness does,
// measured with bare ioctls in the same process, so exitbench's figures can
// be printed next to it as a ratio. A real-mode guest of a few bytes: no
// page tables, no runtime, no dispatch; the VMM reads the exit reason and
// re-enters.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace eb::bench {

// Open /dev/kvm, KVM_CREATE_VM, one memory slot of exitbench's guest size
// (mapped, never touched), KVM_CREATE_VCPU and its run area, the registers,
// and KVM_RUN to the first (port I/O) exit.
struct FloorStartup {
    double open_ms = 0, build_ms = 0, first_exit_ms = 0;  // each from the start
};
// Empty with the reason when this host cannot run the floor's guest (a
// backend without real mode, for example).
std::optional<FloorStartup> floor_startup(std::string& why_not);

enum class FloorExit { Pio, Mmio, Msr };
const char* floor_exit_name(FloorExit k);

// Per exit of one kind, in TSC cycles: the VMM's part (KVM_RUN return to the
// next KVM_RUN, as exitbench's userspace split measures it) and the whole
// round trip (one KVM_RUN return to the next).
struct FloorLoop {
    std::vector<double> vmm_cycles, round_trip_cycles;
};
// The layers exitbench's exit path adds, one at a time, over the same guest:
// the bare ioctl; kvm::Vcpu::enter() (its timestamps, its error check), the
// exit read from kvm_run; that plus the VMM's per-exit histogram
// (vmm::ExitTimes::record). The rest is the VMM's dispatch and device.
enum class FloorPath { Bare, VcpuRaw, VcpuRawRecorded };
const char* floor_path_name(FloorPath p);
std::optional<FloorLoop> floor_exit_loop(FloorExit kind, size_t exits, std::string& why_not,
                                         FloorPath path = FloorPath::Bare);

} // namespace eb::bench
