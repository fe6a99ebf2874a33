#include <gtest/gtest.h>

#include "suite/verify.h"

using namespace eb::suite;
using eb::vmm::Backend;

namespace {
Observed kernel_run(uint64_t exits, uint64_t irq, uint64_t iters = 1000, uint64_t batches = 10) {
    Observed o;
    o.iterations = iters;
    o.batches = batches;
    o.kvm = std::map<std::string, uint64_t>{{"exits", exits}, {"irq_exits", irq}};
    return o;
}
} // namespace

TEST(Verify, KernelExitsSubtractUcallsAndHostInterrupts) {
    auto c = check_exits(kernel_exits(1), kernel_run(1000 + 10 + 7, 7), Backend::Svm);
    ASSERT_TRUE(c.measured);
    EXPECT_DOUBLE_EQ(*c.measured, 1.0);
    EXPECT_EQ(status_for(kernel_exits(1), c), Status::Ok);
}

TEST(Verify, SoftwareBackendCannotVerifyKernelExits) {
    auto c = check_exits(kernel_exits(1), kernel_run(16, 0), Backend::Pvm);
    EXPECT_FALSE(c.measured);
    EXPECT_NE(c.note.find("kvm_pvm"), std::string::npos);
    EXPECT_EQ(status_for(kernel_exits(1), c), Status::Unverified);
}

TEST(Verify, NoStatsFdIsUnverified) {
    Observed o;
    o.iterations = 100;
    auto c = check_exits(kernel_exits(1), o, Backend::Vmx);
    EXPECT_FALSE(c.measured);
    EXPECT_NE(c.note.find("stats"), std::string::npos);
}

TEST(Verify, UserExitsAreCountedByTheVmmOnAnyBackend) {
    Observed o;
    o.iterations = 500;
    o.user_io = 500;
    auto c = check_exits(user_io_exits(1), o, Backend::Pvm);
    ASSERT_TRUE(c.measured);
    EXPECT_EQ(status_for(user_io_exits(1), c), Status::Ok);
    o.user_io = 0;
    o.user_mmio = 500;
    EXPECT_EQ(status_for(user_mmio_exits(1), check_exits(user_mmio_exits(1), o, Backend::Pvm)), Status::Ok);
}

TEST(Verify, ZeroExitsIsNoExitOnlyWhereAllowed) {
    auto run = kernel_run(10, 0);
    auto allowed = kernel_exits(1).maybe_none("passed through");
    EXPECT_EQ(status_for(allowed, check_exits(allowed, run, Backend::Vmx)), Status::NoExit);
    EXPECT_EQ(status_for(kernel_exits(1), check_exits(kernel_exits(1), run, Backend::Vmx)),
              Status::Mismatch);
}

TEST(Verify, WrongCountIsMismatch) {
    auto c = check_exits(kernel_exits(1), kernel_run(2010, 0), Backend::Vmx);
    EXPECT_EQ(status_for(kernel_exits(1), c), Status::Mismatch);
    auto two = kernel_exits(2);
    EXPECT_EQ(status_for(two, check_exits(two, kernel_run(2010, 0), Backend::Vmx)), Status::Ok);
}

TEST(Verify, ExpectedNoneWithExitsIsMismatch) {
    auto c = check_exits(no_exit(), kernel_run(510, 0), Backend::Svm);
    EXPECT_EQ(status_for(no_exit(), c), Status::Mismatch);
    EXPECT_EQ(status_for(no_exit(), check_exits(no_exit(), kernel_run(10, 0), Backend::Svm)), Status::Ok);
}

TEST(Verify, FailureStatuses) {
    EXPECT_TRUE(is_failure(Status::Hung));
    EXPECT_TRUE(is_failure(Status::Mismatch));
    EXPECT_FALSE(is_failure(Status::NoExit));
    EXPECT_FALSE(is_failure(Status::Skipped));
    EXPECT_FALSE(is_failure(Status::Unverified));
}
