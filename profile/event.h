// The record the host-side recorder produces, one per KVM tracepoint hit, and
// the analyzer consumes. Fixed 40 bytes so a trace file is a header plus a
// flat array of these (see trace_file.h).
#pragma once
#include <cstdint>
#include <string_view>

namespace eb::profile {

// Values are part of the trace file format: never renumber.
enum class EventType : uint8_t { Exit = 1, Entry, Mmio, Pio, Msr, UserspaceExit, EmulateInsn, Lost, Cpuid, ApicIpi, AcceptIrq, HostFault };

inline constexpr uint8_t kFirstEventType = 1;
inline constexpr uint8_t kLastEventType = 12;

constexpr bool valid_event_type(uint8_t t) { return t >= kFirstEventType && t <= kLastEventType; }

// a and b mirror the kvm tracepoint fields:
//   Exit           a = exit_reason (full code), b = guest_rip; flags bit0: isa (0 vmx, 1 svm), optional
//   Entry          a = rip
//   Mmio           a = gpa, b = kvm_mmio type (0 unsatisfied read, 1 read, 2 write), flags = len
//   Pio            a = port, b = rw (0 in, 1 out), flags = size
//   Msr            a = ecx (MSR index), b = write (0/1)
//   UserspaceExit  a = KVM_EXIT_* reason
//   EmulateInsn    a = rip, b = failed
//   Lost           a = events lost on `cpu` just before this point
//   Cpuid          a = function (leaf), b = index (subleaf)
//   ApicIpi        a = icr_low, b = dest_id
//   AcceptIrq      a = vec, b = apicid
//   HostFault      a = address, b = error_code (exceptions:page_fault_kernel)
struct Event {
    uint64_t ts_ns;
    uint32_t tid;
    uint32_t vcpu;
    uint16_t cpu;
    EventType type;
    uint8_t flags;
    uint32_t pad;
    uint64_t a;
    uint64_t b;
};
static_assert(sizeof(Event) == 40, "Event is a file record: 40 bytes, no hidden padding");
static_assert(alignof(Event) == 8);

// kvm_mmio's type field.
inline constexpr uint64_t kMmioUnsatisfiedRead = 0;
inline constexpr uint64_t kMmioRead = 1;
inline constexpr uint64_t kMmioWrite = 2;

// The tracepoint each type comes from ("lost" for Lost records).
constexpr std::string_view event_type_name(EventType t) {
    switch (t) {
    case EventType::Exit: return "kvm_exit";
    case EventType::Entry: return "kvm_entry";
    case EventType::Mmio: return "kvm_mmio";
    case EventType::Pio: return "kvm_pio";
    case EventType::Msr: return "kvm_msr";
    case EventType::UserspaceExit: return "kvm_userspace_exit";
    case EventType::EmulateInsn: return "kvm_emulate_insn";
    case EventType::Lost: return "lost";
    case EventType::Cpuid: return "kvm_cpuid";
    case EventType::ApicIpi: return "kvm_apic_ipi";
    case EventType::AcceptIrq: return "kvm_apic_accept_irq";
    case EventType::HostFault: return "page_fault_kernel";
    }
    return "invalid";
}

} // namespace eb::profile
