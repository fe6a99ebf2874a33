// A recipe's preconditions, checked against synthetic host facts: each rule
// says why it fails, and passes where the host has what the seed had.
#include <gtest/gtest.h>

#include "lab/recipe_check.h"
#include "vmm/cpuid_features.h"

using namespace eb;

namespace {

lab::RecipeHost vmx_host() {
    lab::RecipeHost h;
    h.backend = vmm::Backend::Vmx;
    h.backend_module = "kvm_intel";
    h.host_cpus = 4;
    h.facts = {{"msr.spec_ctrl.cpu0", "0x401"}, {"msr.spec_ctrl.cpu1", "0x401"}, {"msr.spec_ctrl.cpu2", "0x401"},
               {"msr.spec_ctrl.cpu3", "0x401"}, {"msr.efer.cpu0", "0xd01"},
               // allowed-1 halves: entry bit 15 (load IA32_EFER), exit bit 21
               {"msr.vmx_true_entry_ctls.cpu0", "0x0000800000000000"},
               {"msr.vmx_true_exit_ctls.cpu0", "0x0020000000000000"},
               {"kvm.param.kvm_intel.enable_apicv", "Y"}, {"kvm.param.kvm_intel.enable_ipiv", "N"}};
    kvm_cpuid_entry2 leaf7{};
    leaf7.function = 7;
    h.cpuid = {leaf7};
    vmm::set_cpuid_bit(h.cpuid, cpuid::kSpecCtrl, true);
    return h;
}

std::optional<std::string> unmet(const std::string& need, const lab::RecipeHost& h, uint32_t smp = 1) {
    return lab::check_needs({need}, smp, h).at(0).unmet;
}

} // namespace

TEST(RecipeCheck, MetWhereTheHostHasWhatTheSeedHad) {
    auto h = vmx_host();
    for (const char* n : {"vmx", "vmx_or_svm", "host_spec_ctrl", "host_bhi_dis_s", "host_efer", "load_efer", "apicv",
                          "ipi_exits", "cpuid:spec-ctrl"})
        EXPECT_EQ(unmet(n, h), std::nullopt) << n << ": " << unmet(n, h).value_or("");
    EXPECT_EQ(lab::check_needs({"host_spec_ctrl"}, 1, h)[0].seen, "0x401");
    EXPECT_EQ(unmet("smp_cpus", h, 3), std::nullopt);
}

TEST(RecipeCheck, EachFailureSaysWhy) {
    auto h = vmx_host();
    EXPECT_NE(unmet("smp_cpus", h, 20)->find("--smp 20 needs at least 21 host CPUs"), std::string::npos);
    EXPECT_NE(unmet("cpuid:bhi-ctrl", h)->find("BHI_CTRL"), std::string::npos);
    h.facts[0].second = "unreadable: /dev/cpu/0/msr: No such file or directory";
    EXPECT_NE(unmet("host_spec_ctrl", h)->find("unknown"), std::string::npos);
    h = vmx_host();
    h.facts[1].second = "0x1";  // CPUs disagree: the seed's question has no single host value
    EXPECT_NE(unmet("host_spec_ctrl", h)->find("differs between CPUs"), std::string::npos);
    h = vmx_host();
    for (auto& f : h.facts) f.second = f.first.find("spec_ctrl") != std::string::npos ? "0x1" : f.second;
    EXPECT_NE(unmet("host_bhi_dis_s", h)->find("without BHI_DIS_S"), std::string::npos);
    h = vmx_host();
    h.facts[5].second = "0x0";
    EXPECT_NE(unmet("load_efer", h)->find("cannot load IA32_EFER"), std::string::npos);
    h = vmx_host();
    h.facts[7].second = "N";
    EXPECT_TRUE(unmet("apicv", h));
    h = vmx_host();
    h.facts[8].second = "Y";
    EXPECT_NE(unmet("ipi_exits", h)->find("does not exit"), std::string::npos);
    EXPECT_NE(unmet("no_such_need", h)->find("no rule"), std::string::npos);
}

TEST(RecipeCheck, APvmHostAnswersNothingThatNeedsHardware) {
    lab::RecipeHost h;
    h.backend = vmm::Backend::Pvm;
    h.backend_module = "kvm_pvm";
    h.host_cpus = 2;
    EXPECT_NE(unmet("vmx", h)->find("/dev/kvm is kvm_pvm"), std::string::npos);
    EXPECT_NE(unmet("vmx_or_svm", h)->find("kvm_pvm"), std::string::npos);
    EXPECT_NE(unmet("load_efer", h)->find("VMX control"), std::string::npos);
    EXPECT_TRUE(unmet("smp_cpus", h, 2));  // 2 vCPUs and the host need 3
    for (const auto& n : lab::known_needs()) EXPECT_TRUE(lab::need_description(n)) << n;
}
