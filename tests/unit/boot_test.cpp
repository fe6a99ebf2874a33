#include <cstring>
#include <gtest/gtest.h>

#include "vmm/boot.h"

using namespace eb;

TEST(Boot, PageTablesIdentityMapFourGiB) {
    vmm::GuestMemory mem(eb::abi::kRamBytes);
    vmm::write_page_tables(mem);
    auto walk = [&](uint64_t va) {
        uint64_t pml4e = mem.at<uint64_t>(eb::abi::kPml4)[(va >> 39) & 511];
        uint64_t pdpte = mem.at<uint64_t>(pml4e & ~0xfffull)[(va >> 30) & 511];
        uint64_t pde = mem.at<uint64_t>(pdpte & ~0xfffull)[(va >> 21) & 511];
        EXPECT_TRUE(pde & 0x80) << "2 MiB page";
        return (pde & ~0x1fffffull & ((1ull << 52) - 1)) | (va & 0x1fffff);
    };
    for (uint64_t va : {uint64_t{0}, eb::abi::kImageBase + 0x123, eb::abi::kUserMmio, uint64_t{0xfee00000}, uint64_t{0xffffffff}})
        EXPECT_EQ(walk(va), va);
}

TEST(Boot, IdtPointsAtStubsAndTssAtStacks) {
    const auto& img = vmm::GuestImage::embedded();
    vmm::GuestMemory mem(eb::abi::kRamBytes);
    vmm::write_descriptor_tables(mem, img, 2);
    auto* idt = mem.at<uint64_t>(eb::abi::kIdt);
    for (uint64_t v : {0ull, 6ull, 14ull, 255ull}) {
        uint64_t lo = idt[2 * v], hi = idt[2 * v + 1];
        uint64_t off = (lo & 0xffff) | (((lo >> 48) & 0xffff) << 16) | (hi << 32);
        EXPECT_EQ(off, img.header().isr_stubs + v * eb::abi::kIsrStubSize);
        EXPECT_EQ((lo >> 16) & 0xffff, eb::abi::kCodeSel);
    }
    auto s = vmm::long_mode_sregs({}, 1, {});
    EXPECT_EQ(s.tr.selector, eb::abi::kTssSel + 16);
    uint64_t rsp0;  // at TSS offset 4: not 8-byte aligned, so no uint64_t& to it
    std::memcpy(&rsp0, mem.at<uint8_t>(s.tr.base + 4), sizeof rsp0);
    EXPECT_EQ(rsp0, eb::abi::stack_top(1));
    EXPECT_EQ(s.gs.base, eb::abi::mailbox_gpa(1));
    EXPECT_EQ(s.efer & 0x500, 0x500u);
}

TEST(Boot, EferKnobs) {
    EXPECT_EQ(vmm::long_mode_sregs({}, 0, {.efer_nx = false, .efer_sce = false}).efer, 0x500u);
    EXPECT_EQ(vmm::long_mode_sregs({}, 0, {.efer_nx = true, .efer_sce = true}).efer, 0xd01u);
}

// The per-exit copy reads n samples from the guest: the whole range must be RAM,
// and a length that wraps around must not pass the check.
TEST(GuestMemory, RangeChecksCoverTheWholeRange) {
    vmm::GuestMemory mem(eb::abi::kRamBytes);
    EXPECT_NO_THROW(mem.ptr(eb::abi::kSampleBuf, eb::abi::kSampleMax * 8));
    EXPECT_THROW(mem.ptr(eb::abi::kSampleBuf, eb::abi::kSampleMax * 8 + 1), std::out_of_range);
    EXPECT_THROW(mem.ptr(eb::abi::kRamBytes - 8, 16), std::out_of_range);
    EXPECT_THROW(mem.ptr(8, ~uint64_t{0}), std::out_of_range);
    EXPECT_THROW(mem.ptr(eb::abi::kRamBytes + 1, 0), std::out_of_range);
}
