// The contract between the guest image and the VMM: guest-physical layout,
// the image header, and the per-vCPU mailbox. Included by both sides, so it
// is freestanding and pointer-free (guest addresses are plain u64).
#pragma once
#include <stdint.h>

namespace eb::abi {

constexpr uint32_t kImageMagic = 0x54495845;  // "EXIT"
constexpr uint32_t kAbiVersion = 1;

// Guest-physical layout; the guest is identity-mapped, so these are also
// its virtual addresses.
constexpr uint64_t kPml4 = 0x1000;
constexpr uint64_t kPdpt = 0x2000;
constexpr uint64_t kPd = 0x3000;           // four PDs: 0-4 GiB in 2 MiB pages
constexpr uint64_t kGdt = 0x8000;
constexpr uint64_t kIdt = 0x9000;
constexpr uint64_t kTss = 0xa000;          // one 128-byte slot per vCPU
constexpr uint64_t kBootInfo = 0x10000;
constexpr uint64_t kMailboxes = 0x20000;   // one page per vCPU
constexpr uint64_t kImageBase = 0x100000;
constexpr uint64_t kImageMax = 0x100000;
constexpr uint64_t kStacks = 0x200000;     // kStackSize per vCPU
constexpr uint64_t kStackSize = 0x10000;
constexpr uint32_t kMaxVcpus = 64;
// Per-exit timestamps (vCPU 0), read by the host after each batch.
constexpr uint64_t kSampleBuf = 0x1000000;
constexpr uint64_t kSampleMax = 1u << 20;
constexpr uint64_t kRamBytes = kSampleBuf + kSampleMax * 8;
static_assert(kStacks + kMaxVcpus * kStackSize <= kSampleBuf);

// Userspace test devices.
constexpr uint16_t kUcallPort = 0x5e0;     // guest -> host messages
// The ucall port's device on the VMM's PIO bus; its exits are the protocol's,
// not the test's, so exit counts leave them out.
constexpr char kUcallDevice[] = "ucall";
constexpr uint16_t kUserPort = 0x1234;     // KUT's unassigned port, served by our VMM
constexpr uint32_t kUserPortValue = 0xe1e1e1e1;
constexpr uint64_t kUserMmio = 0xd0000000; // no memslot: every access exits to the VMM
constexpr uint32_t kUserMmioValue = 0x5ca1ab1e;
constexpr uint16_t kPmTimerPort = 0x608;   // ACPI PM timer, where QEMU's PIIX4 puts it
// pci-testdev stand-ins: a BAR-like MMIO window and a PIO window that either
// exit to the VMM or are served by an ioeventfd.
constexpr uint64_t kTestDevMmio = 0xd0001000;
constexpr uint16_t kTestDevPort = 0x6000;
// A memslot the host unmaps between batches, for first-touch EPT/NPT violations.
constexpr uint64_t kNpfRegion = 0x40000000;
constexpr uint64_t kNpfBytes = 64ull << 20;
constexpr uint32_t kTestDevValue = 0x7e57da7a; // what the guest writes; datamatch matches it

// GDT selectors.
constexpr uint16_t kCodeSel = 0x08;
constexpr uint16_t kDataSel = 0x10;
constexpr uint16_t kTssSel = 0x18;         // vCPU n uses kTssSel + 16 * n

enum Ucall : uint32_t {
    kReady = 1,      // set up; waiting for the first command
    kBatchDone = 2,  // mailbox.cycles holds the batch's TSC delta
    kFail = 3,       // mailbox.msg says why
    kException = 4,  // mailbox.exc describes it
    kSkip = 5,       // the guest lacks what the test needs; mailbox.msg says what
};

struct ExceptionInfo {
    uint64_t vector, error_code, rip, cs, rflags, rsp, cr2;
};

// Guest MSR values (--guest-msr) and CPUID probes (--cpuid) per run, each.
constexpr uint32_t kMaxKnobs = 8;

// What the guest saw after the knobs: read back by the guest itself.
struct GuestState {
    uint64_t efer;
    uint64_t msr[kMaxKnobs];          // read back after writing msr_knobs[i]
    uint32_t cpuid[kMaxKnobs][4];     // eax..edx of cpuid_probes[i]
};

// Where a guest check failed and what it compared (kFail from GUEST_CHECK*):
// line 0 means a plain fail() with only a message.
struct CheckInfo {
    uint32_t line;
    uint32_t has_values;      // 1: lhs and rhs hold the two sides of ==
    uint64_t lhs, rhs;
    char file[64];            // from the last "guest/" on, NUL-terminated
    char expr[96];            // the check's source text
};

struct Mailbox {
    uint64_t self;                 // its own address: the guest reads it at %gs:0
    volatile uint64_t iterations;  // host -> guest: the next batch size
    volatile uint64_t cycles;      // guest -> host
    uint32_t vcpu;                 // host -> guest: this vCPU's index
    uint32_t pad;
    volatile uint64_t irqs;        // interrupts this vCPU handled (vector >= 32)
    // IPIs received here: sender TSC at the ICR write -> TSC in the handler.
    volatile uint64_t ipi_lat_sum, ipi_lat_count;
    ExceptionInfo exc;
    char msg[128];
    GuestState state;
    CheckInfo check;
};

enum ApicMode : uint32_t { kXapic = 1, kX2apic = 2 };

struct BootInfo {
    uint32_t magic;
    uint32_t nr_vcpus;
    uint64_t batch;      // guest address of the test's batch function
    uint64_t setup;      // guest address of its setup function, or 0
    uint32_t apic_mode;  // ApicMode
    uint32_t parallel;   // run the batch on every vCPU at once (KUT's parallel=1)
    uint64_t irq_wait_cycles;  // how long a test waits for an interrupt before calling it lost
    uint64_t per_exit;         // guest address of the per-exit batch function, or 0 for batch mode
    // Guest state knobs, applied on every vCPU before the test's setup.
    uint32_t nr_msr_knobs;
    uint32_t nr_cpuid_probes;
    struct { uint32_t index, pad; uint64_t value; } msr_knobs[kMaxKnobs];
    struct { uint32_t leaf, sub; } cpuid_probes[kMaxKnobs];
};


// Vectors the runtime and bodies use (KUT's values where it has them).
constexpr uint8_t kIpiVector = 0x20;       // cross-vCPU IPI, acknowledged by the target
constexpr uint8_t kSelfIpiVector = 0xb0;
constexpr uint8_t kTimerVector = 0xef;     // LAPIC timer in TSC-deadline mode

// One per guest body (GUEST_BODY); the host looks bodies up by name.
struct BodyEntry {
    uint64_t name;       // guest address of a NUL-terminated name
    uint64_t batch;      // uint64_t (*)(uint64_t iterations): TSC delta
    uint64_t setup;      // void (*)(void), or 0
    uint64_t per_exit;   // uint64_t (*)(uint64_t n, uint64_t* out): as batch, and each
                         // iteration's own serialized TSC delta in out[i]
};
static_assert(sizeof(BodyEntry) == 32, "the guest packs BodyEntry arrays back to back");

struct ImageHeader {
    uint32_t magic;
    uint32_t abi_version;
    uint64_t entry;           // 64-bit entry; rdi = vCPU index, rsp set by host
    uint64_t isr_stubs;       // 256 stubs, kIsrStubSize bytes apart
    uint64_t bodies_begin;    // BodyEntry array
    uint64_t bodies_end;
    uint64_t image_end;       // end of .bss
};
constexpr uint64_t kIsrStubSize = 16;

inline constexpr uint64_t mailbox_gpa(uint32_t vcpu) { return kMailboxes + 0x1000ull * vcpu; }
static_assert(sizeof(Mailbox) <= 0x1000, "a mailbox is one page");
inline constexpr uint64_t stack_top(uint32_t vcpu) { return kStacks + kStackSize * (vcpu + 1); }

} // namespace eb::abi
