// Local APIC access in xAPIC (MMIO) or x2APIC (MSR) mode, as the host chose.
#pragma once
#include <stdint.h>

namespace eb::guest {

// xAPIC register offsets; x2APIC MSR = 0x800 + offset / 16.
enum ApicReg : uint32_t {
    kApicId = 0x20, kApicTpr = 0x80, kApicEoi = 0xb0, kApicSvr = 0xf0,
    kApicIcr = 0x300, kApicIcr2 = 0x310, kApicLvtt = 0x320,
};
constexpr uint32_t kIcrSelf = 1u << 18;          // destination shorthand: self
constexpr uint32_t kIcrAssert = 1u << 14;
constexpr uint32_t kIcrNmi = 4u << 8;            // delivery mode NMI
constexpr uint32_t kLvttTscDeadline = 2u << 17;
constexpr uint32_t kMsrTscDeadline = 0x6e0;
constexpr uint32_t kMsrX2apicSelfIpi = 0x83f;

void apic_init(uint32_t mode);
bool apic_x2();
uint32_t apic_read(uint32_t reg);
void apic_write(uint32_t reg, uint32_t v);
void apic_icr(uint32_t dest, uint32_t low);
inline void apic_eoi() { apic_write(kApicEoi, 0); }
// TPR through CR8, as KUT's apic_set_tpr does on x86_64.
inline void set_tpr(uint64_t v) { asm volatile("mov %0, %%cr8" :: "r"(v) : "memory"); }

using IrqHandler = void (*)();
void set_irq_handler(uint8_t vector, IrqHandler h);

inline void cli() { asm volatile("cli" ::: "memory"); }
inline void sti() { asm volatile("sti" ::: "memory"); }
inline void sti_nop() { asm volatile("sti; nop" ::: "memory"); }
inline void sti_hlt() { asm volatile("sti; hlt" ::: "memory"); }
inline void pause() { asm volatile("pause" ::: "memory"); }

} // namespace eb::guest
