// How exitbench's tests differ from kvm-unit-tests' x86/vmexit.c, whose names
// they carry: the one table `list`, `list --kut-differences` and docs/kut-differences.md's
// "Differences from vmexit.flat" come from.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace eb::suite {

// A test in vmexit.c's table, and the registry tests that carry its name
// (pci-mem and pci-io are one entry there, one per pci-testdev case here).
struct KutTest {
    std::string_view kut;
    std::vector<std::string_view> tests;
};

struct KutDifference {
    std::vector<std::string_view> kut;  // vmexit.c names it concerns; empty: every test
    std::string_view vmexit_c;          // what vmexit.c does
    std::string_view exitbench;         // what exitbench does instead
    std::string_view effect;            // why, and what it does to the figure
};

// All 36 of vmexit.c's tests, in its order.
const std::vector<KutTest>& kut_tests();
const std::vector<KutDifference>& kut_differences();
// The vmexit.c name a registry test carries; empty for exitbench's own tests.
std::string_view kut_name_of(std::string_view registry_name);
// The differences of one registry test, the ones shared by every test left out.
std::vector<const KutDifference*> kut_differences_of(std::string_view registry_name);
// vmexit.c's tests that run the same instructions, only the shared differences applying.
std::vector<std::string_view> kut_same_body();
// docs/kut-differences.md's table, as markdown.
std::string kut_differences_markdown();

} // namespace eb::suite
