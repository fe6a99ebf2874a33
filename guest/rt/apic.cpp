#include "guest/rt/apic.h"

#include "guest/rt/guest.h"

namespace eb::guest {

namespace {
constexpr uint32_t kMsrApicBase = 0x1b;
constexpr uint64_t kApicBaseEnable = 1u << 11, kApicBaseExtd = 1u << 10;
constexpr uint64_t kXapicMmio = 0xfee00000;
bool x2 = false;
IrqHandler handlers[256];
} // namespace

bool apic_x2() { return x2; }

uint32_t apic_read(uint32_t reg) {
    if (x2) return static_cast<uint32_t>(rdmsr(0x800 + reg / 16));
    return *reinterpret_cast<volatile uint32_t*>(kXapicMmio + reg);
}

void apic_write(uint32_t reg, uint32_t v) {
    if (x2)
        wrmsr(0x800 + reg / 16, v);
    else
        *reinterpret_cast<volatile uint32_t*>(kXapicMmio + reg) = v;
}

void apic_icr(uint32_t dest, uint32_t low) {
    if (x2) {
        wrmsr(0x830, (uint64_t(dest) << 32) | low);
    } else {
        apic_write(kApicIcr2, dest << 24);
        apic_write(kApicIcr, low);
    }
}

void apic_init(uint32_t mode) {
    uint64_t base = rdmsr(kMsrApicBase) | kApicBaseEnable;
    x2 = mode == abi::kX2apic;
    if (x2) base |= kApicBaseExtd;
    wrmsr(kMsrApicBase, base);
    apic_write(kApicSvr, 0x1ff);  // software-enable, spurious vector 0xff
    apic_write(kApicTpr, 0);
}

void set_irq_handler(uint8_t vector, IrqHandler h) { handlers[vector] = h; }

} // namespace eb::guest

// Called from eb_isr for vectors >= 32: true if a handler took it.
bool eb_dispatch_irq(uint64_t vector) {
    if (auto h = eb::guest::handlers[vector & 0xff]) {
        h();
        eb::guest::mailbox()->irqs = eb::guest::mailbox()->irqs + 1;
        return true;
    }
    return false;
}
