// Decoding kvm_run into typed exits: what a failing vCPU's report is built from.
#include <gtest/gtest.h>

#include "kvm/exit.h"

using namespace eb;

// KVM_EXIT_INTERNAL_ERROR's data[] words are what the report prints; ndata
// comes from the kernel and must not read past the array.
TEST(DecodeExit, InternalErrorKeepsItsDataWordsWithinTheArray) {
    kvm_run run{};
    run.exit_reason = KVM_EXIT_INTERNAL_ERROR;
    run.internal.suberror = KVM_INTERNAL_ERROR_EMULATION;
    run.internal.ndata = 3;
    for (uint64_t i = 0; i < std::size(run.internal.data); ++i) run.internal.data[i] = 0x100 + i;
    auto e = std::get<kvm::exit::InternalError>(kvm::decode_exit(run));
    EXPECT_EQ(e.suberror, uint32_t(KVM_INTERNAL_ERROR_EMULATION));
    EXPECT_EQ(e.data, (std::vector<uint64_t>{0x100, 0x101, 0x102}));

    run.internal.ndata = 1000;
    e = std::get<kvm::exit::InternalError>(kvm::decode_exit(run));
    EXPECT_EQ(e.data.size(), std::size(run.internal.data));
}
