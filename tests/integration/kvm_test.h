// The integration tests that need /dev/kvm say so where they are defined,
// and nowhere else: each is in a registry the test binary itself prints, so
// the nested kvm_amd stage runs exactly them (tests/nested/in-svm.sh, the
// binary's --eb-kvm-only) and no list of names is kept in a script.
//
//   KVM_TEST(Suite, Name) { ... }           skipped, saying why, without
//   KVM_TEST_F(Fixture, Name) { ... }       /dev/kvm; run in the nested guest
//   KVM_TEST_HOST_ONLY(Suite, Name, "why")  the nested guest cannot run it:
//   KVM_TEST_F_HOST_ONLY(Fixture, Name, "why")   the reason, said once
#pragma once
#include <map>
#include <string>

#include <gtest/gtest.h>

bool have_kvm();

namespace eb::test {

// Test name ("Suite.Name") to why the nested kvm_amd cannot run it ("": it can).
std::map<std::string, std::string>& kvm_tests();
inline bool register_kvm_test(const char* name, const char* host_only) {
    kvm_tests()[name] = host_only ? host_only : "";
    return true;
}
// The gtest filter of the registered tests the nested guest runs.
std::string nested_kvm_filter();

inline constexpr const char* kNoKvm = "/dev/kvm is absent on this machine";

// The skip, before the test's own SetUp: nothing of it runs without /dev/kvm.
class KvmTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!have_kvm()) GTEST_SKIP() << kNoKvm;
    }
};
template <class Fixture>
class KvmFixture : public Fixture {
protected:
    void SetUp() override {
        Fixture::SetUp();
        if (!have_kvm()) GTEST_SKIP() << kNoKvm;
    }
};

} // namespace eb::test

#define EB_KVM_REGISTER_(suite, name, why) \
    [[maybe_unused]] static const bool eb_kvm_##suite##_##name = ::eb::test::register_kvm_test(#suite "." #name, why)

// The fixture's own type id (or plain TEST's): a suite may mix these with
// TEST/TEST_F, as gtest allows only for one fixture type per suite.
#define KVM_TEST(suite, name)              \
    EB_KVM_REGISTER_(suite, name, nullptr); \
    GTEST_TEST_(suite, name, ::eb::test::KvmTest, ::testing::internal::GetTestTypeId())
#define KVM_TEST_HOST_ONLY(suite, name, why) \
    EB_KVM_REGISTER_(suite, name, why);      \
    GTEST_TEST_(suite, name, ::eb::test::KvmTest, ::testing::internal::GetTestTypeId())
#define KVM_TEST_F(fixture, name)                \
    EB_KVM_REGISTER_(fixture, name, nullptr);     \
    GTEST_TEST_(fixture, name, ::eb::test::KvmFixture<fixture>, ::testing::internal::GetTypeId<fixture>())
#define KVM_TEST_F_HOST_ONLY(fixture, name, why) \
    EB_KVM_REGISTER_(fixture, name, why);         \
    GTEST_TEST_(fixture, name, ::eb::test::KvmFixture<fixture>, ::testing::internal::GetTypeId<fixture>())
