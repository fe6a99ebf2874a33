// The guest's main loop: run batches of the test body when the host asks,
// report exceptions and failures through the mailbox.
#include "guest/rt/guest.h"

using namespace eb;

namespace {

struct IsrFrame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector, error_code, rip, cs, rflags, rsp, ss;
};

void copy_msg(char* dst, const char* src, int cap) {
    int i = 0;
    for (; i < cap - 1 && src[i]; ++i) dst[i] = src[i];
    dst[i] = 0;
}

uint64_t read_cr2() {
    uint64_t v;
    asm volatile("mov %%cr2, %0" : "=r"(v));
    return v;
}

} // namespace

namespace eb::g {

void fail(const char* msg) {
    copy_msg(mailbox()->msg, msg, sizeof(abi::Mailbox::msg));
    ucall(abi::kFail);
    halt_forever();
}

void skip(const char* why) {
    copy_msg(mailbox()->msg, why, sizeof(abi::Mailbox::msg));
    ucall(abi::kSkip);
    halt_forever();
}

} // namespace eb::g

extern "C" void eb_isr(IsrFrame* f) {
    abi::Mailbox* mb = g::mailbox();
    if (f->vector < 32)
        mb->exc = {f->vector, f->error_code, f->rip, f->cs, f->rflags, f->rsp, read_cr2()};
    else
        mb->exc = {f->vector, 0, f->rip, f->cs, f->rflags, f->rsp, 0};
    // No handlers yet: any exception or interrupt ends the test and is reported.
    g::ucall(abi::kException);
    g::halt_forever();
}

extern "C" void guest_main(uint32_t vcpu) {
    auto* boot = reinterpret_cast<const abi::BootInfo*>(abi::kBootInfo);
    if (vcpu != 0) g::halt_forever();  // APs stay parked until a test needs them
    if (boot->setup) reinterpret_cast<void (*)()>(boot->setup)();
    auto batch = reinterpret_cast<uint64_t (*)(uint64_t)>(boot->batch);
    abi::Mailbox* mb = g::mailbox();
    g::ucall(abi::kReady);
    for (;;) {
        mb->cycles = batch(mb->iterations);
        g::ucall(abi::kBatchDone);
    }
}

// The compiler may emit calls to these for struct copies.
extern "C" void* memcpy(void* d, const void* s, unsigned long n) {
    auto* dp = static_cast<char*>(d);
    auto* sp = static_cast<const char*>(s);
    while (n--) *dp++ = *sp++;
    return d;
}
extern "C" void* memset(void* d, int c, unsigned long n) {
    auto* dp = static_cast<char*>(d);
    while (n--) *dp++ = static_cast<char>(c);
    return d;
}
