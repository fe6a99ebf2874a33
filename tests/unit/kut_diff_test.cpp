// The differences from vmexit.flat: complete, consistent with the registry,
// and docs/kut-differences.md's table is the one the code renders.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "suite/kut_diff.h"
#include "suite/registry.h"
#include "tests/paths.h"

using namespace eb;

namespace {
// vmexit.c's test table, as read from kvm-unit-tests (x86/vmexit.c).
const std::set<std::string> kVmexitC = {
    "cpuid", "vmcall", "wbinvd", "invd", "mov_from_cr8", "mov_to_cr8", "inl_from_pmtimer", "inl_from_qemu",
    "inl_from_kernel", "outl_to_kernel", "mov_dr", "tscdeadline_immed", "tscdeadline", "self_ipi_sti_nop",
    "self_ipi_sti_hlt", "self_ipi_tpr", "self_ipi_tpr_sti_nop", "self_ipi_tpr_sti_hlt", "x2apic_self_ipi_sti_nop",
    "x2apic_self_ipi_sti_hlt", "x2apic_self_ipi_tpr", "x2apic_self_ipi_tpr_sti_nop", "x2apic_self_ipi_tpr_sti_hlt",
    "ipi", "ipi_halt", "ple_round_robin", "wr_kernel_gs_base", "wr_tsx_ctrl_msr", "wr_ibrs_msr", "wr_ibpb_msr",
    "wr_tsc_adjust_msr", "rd_tsc_adjust_msr", "toggle_cr0_wp", "toggle_cr4_pge", "pci-mem", "pci-io"};
} // namespace

TEST(KutDifferences, EveryVmexitCTestMapsToRegistryTests) {
    std::set<std::string> seen;
    for (const auto& t : suite::kut_tests()) {
        seen.insert(std::string(t.kut));
        ASSERT_FALSE(t.tests.empty()) << t.kut;
        for (auto name : t.tests) {
            const auto* spec = suite::find_test(name);
            ASSERT_NE(spec, nullptr) << name;
            EXPECT_FALSE(spec->internal) << name;
            EXPECT_EQ(suite::kut_name_of(spec->name), t.kut);
        }
    }
    EXPECT_EQ(seen, kVmexitC);
}

TEST(KutDifferences, EveryRowNamesKnownTestsAndSaysAllThree) {
    for (const auto& d : suite::kut_differences()) {
        for (auto k : d.kut) EXPECT_TRUE(kVmexitC.count(std::string(k))) << k;
        EXPECT_FALSE(d.vmexit_c.empty());
        EXPECT_FALSE(d.exitbench.empty());
        EXPECT_FALSE(d.effect.empty());
        for (auto text : {d.vmexit_c, d.exitbench, d.effect}) EXPECT_EQ(text.find('|'), std::string_view::npos) << text;
    }
}

TEST(KutDifferences, EachTestHasItsRowsOrIsListedAsTheSameInstructions) {
    auto same = suite::kut_same_body();
    for (const auto& t : suite::kut_tests())
        for (auto name : t.tests) {
            bool listed_same = std::find(same.begin(), same.end(), t.kut) != same.end();
            EXPECT_NE(suite::kut_differences_of(name).empty(), !listed_same) << name;
        }
    // The examples the issue names.
    EXPECT_FALSE(suite::kut_differences_of("tscdeadline_immed").empty());
    EXPECT_FALSE(suite::kut_differences_of("mmio-no-eventfd:pci-mem").empty());
    EXPECT_FALSE(suite::kut_differences_of("inl_from_pmtimer").empty());
    EXPECT_TRUE(suite::kut_differences_of("baseline").empty());
    EXPECT_TRUE(suite::kut_name_of("mmio_from_user").empty());
}

TEST(KutDifferences, DocsCarryTheRenderedTable) {
    std::ifstream f(eb::test::source_dir() + "/docs/kut-differences.md");
    ASSERT_TRUE(f) << "docs/kut-differences.md not found";
    std::stringstream ss;
    ss << f.rdbuf();
    EXPECT_NE(ss.str().find(suite::kut_differences_markdown()), std::string::npos)
        << "docs/kut-differences.md is stale; replace the table between its <!-- kut-differences --> "
           "marks with the output of `exitbench list --kut-differences`";
}
