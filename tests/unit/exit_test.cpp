// Reading exits from kvm_run in place: what the exit path and a failing vCPU's report use.
#include <gtest/gtest.h>
#include <new>
#include <vector>

#include "kvm/exit.h"

using namespace eb;

// KVM_EXIT_INTERNAL_ERROR's data[] words are what the report prints; ndata
// comes from the kernel and must not read past the array.
TEST(ExitData, InternalErrorKeepsItsDataWordsWithinTheArray) {
    kvm_run run{};
    run.exit_reason = KVM_EXIT_INTERNAL_ERROR;
    run.internal.ndata = 3;
    for (uint64_t i = 0; i < std::size(run.internal.data); ++i) run.internal.data[i] = 0x100 + i;
    auto d = kvm::internal_error_data(run);
    EXPECT_EQ(std::vector<uint64_t>(d.begin(), d.end()), (std::vector<uint64_t>{0x100, 0x101, 0x102}));

    run.internal.ndata = 1000;
    EXPECT_EQ(kvm::internal_error_data(run).size(), std::size(run.internal.data));
}

// The VMM's exit path reads PIO and MMIO data through these spans: the
// string I/O elements at data_offset, and at most mmio.data's 8 bytes.
TEST(ExitData, IoAndMmioDataSpansStayInsideTheRunArea) {
    alignas(kvm_run) static uint8_t area[4096];
    auto& run = *new (area) kvm_run{};
    run.exit_reason = KVM_EXIT_IO;
    run.io.direction = KVM_EXIT_IO_IN;
    run.io.size = 2;
    run.io.count = 3;
    run.io.port = 0x1234;
    run.io.data_offset = 1024;
    auto io = kvm::io_data(run);
    EXPECT_EQ(io.data(), area + 1024);
    EXPECT_EQ(io.size(), 6u);

    run.exit_reason = KVM_EXIT_MMIO;
    run.mmio.len = 4;
    EXPECT_EQ(kvm::mmio_data(run).size(), 4u);
    EXPECT_EQ(kvm::mmio_data(run).data(), run.mmio.data);
    run.mmio.len = 1000;
    EXPECT_EQ(kvm::mmio_data(run).size(), sizeof run.mmio.data);
}
