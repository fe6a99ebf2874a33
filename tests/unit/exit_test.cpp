// Decoding kvm_run into typed exits: what a failing vCPU's report is built from.
#include <gtest/gtest.h>
#include <new>

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

// The VMM's exit path reads PIO and MMIO data through these spans: the
// string I/O elements at data_offset, and at most mmio.data's 8 bytes.
TEST(DecodeExit, IoAndMmioDataSpansStayInsideTheRunArea) {
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
    auto in = std::get<kvm::exit::IoIn>(kvm::decode_exit(run));
    EXPECT_EQ(in.data.data(), io.data());
    EXPECT_EQ(in.data.size(), io.size());

    run.exit_reason = KVM_EXIT_MMIO;
    run.mmio.len = 4;
    EXPECT_EQ(kvm::mmio_data(run).size(), 4u);
    EXPECT_EQ(kvm::mmio_data(run).data(), run.mmio.data);
    run.mmio.len = 1000;
    EXPECT_EQ(kvm::mmio_data(run).size(), sizeof run.mmio.data);
}
