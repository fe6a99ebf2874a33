// The module A/B through lab::run_module_ab on a fake host: the order of
// loads, the unit, every refusal changing nothing, and the restore after
// the end, a refused value, a failed run and an interrupt.
#include <gtest/gtest.h>

#include "lab/module_ab.h"
#include "module_fake.h"

namespace {

using namespace eb;
using test::amd_host;

// A run of one test, its cost read from the module's npt (what the fake
// "measures"), so each slot's run shows which side was in effect.
suite::RunReport run_at(double cycles) {
    suite::TestResult t{.name = "cpuid", .status = suite::Status::Ok};
    for (int s = 0; s < 2; ++s) t.sessions.push_back({{cycles, cycles * 1.001, cycles * 0.999}, 1024});
    suite::RunReport r;
    r.results.push_back(t);
    return r;
}

lab::SlotRunner runner(test::FakeModules& h, std::vector<std::string>* seen = nullptr) {
    return [&h, seen](const std::vector<std::string>& words) {
        EXPECT_EQ(words.back(), "--no-save");
        auto npt = h.mods["kvm_amd"].values["npt"];
        if (seen) seen->push_back(npt);
        double level = 1000 * (npt == "N" ? 1.10 : 1.0) * (1 + 0.002 * double(h.loads % 3));
        return lab::SlotRun{0, run_at(level)};
    };
}

lab::ModuleAbSpec spec(const std::string& a, const std::string& b, unsigned n = 3) {
    return {"kvm_amd", {a, b}, n, {"run", "cpuid", "-n", "64"}};
}

const std::vector<std::string> kLabels{"A: npt=1", "B: npt=0"};

TEST(ModuleAb, ReloadsEachSlotInAbbaOrderAndTheLoadIsTheUnit) {
    auto h = amd_host();
    std::atomic<bool> stop{false};
    std::vector<std::string> seen;
    auto before = h.params("kvm_amd");
    auto out = lab::run_module_ab(spec("npt=1", "npt=0"), h, runner(h, &seen), kLabels, 0.05, stop);
    EXPECT_TRUE(out.reload);
    EXPECT_EQ(seen, (std::vector<std::string>{"Y", "N", "N", "Y", "Y", "N"}));
    EXPECT_EQ(h.loads, 2 + 6 + 1);  // each side once before measuring, six slots, the restore
    ASSERT_TRUE(out.cmp);
    EXPECT_EQ(out.cmp->unit, suite::Unit::Load);
    EXPECT_EQ(out.cmp->tests[0].vs_first[0].verdict, suite::Verdict::Slower);
    EXPECT_EQ(out.sides[1][0].provenance.module_load->module, "kvm_amd");
    EXPECT_TRUE(out.restore_ok);
    EXPECT_EQ(h.params("kvm_amd"), before);
    EXPECT_EQ(out.after, before);
    EXPECT_FALSE(lab::module_change_active());
}

TEST(ModuleAb, ParametersWritableAtRunTimeAreWrittenAndTheRunIsTheUnit) {
    auto h = amd_host();
    std::atomic<bool> stop{false};
    auto out = lab::run_module_ab(spec("dump_invalid_vmcb=N", "dump_invalid_vmcb=Y"), h, runner(h), kLabels, 0.05, stop);
    EXPECT_FALSE(out.reload);
    EXPECT_EQ(h.loads, 0);
    for (const auto& l : h.log) EXPECT_TRUE(l.starts_with("write kvm_amd.dump_invalid_vmcb=")) << l;
    ASSERT_TRUE(out.cmp);
    EXPECT_EQ(out.cmp->unit, suite::Unit::Run);
    EXPECT_EQ(h.mods["kvm_amd"].values["dump_invalid_vmcb"], "N");
}

// Every refusal is one line before anything changes.
TEST(ModuleAb, RefusalsChangeNothing) {
    std::atomic<bool> stop{false};
    struct Case {
        std::string a, b, why;
        void (*setup)(test::FakeModules&);
    } cases[] = {
        {"npt=1", "npt=0", "kvm_amd is in use (1 reference beyond the modules stacked on it",
         [](test::FakeModules& h) { h.mods["kvm_amd"].users = 1; }},
        {"npt=1", "nptx=0", "kvm_amd has no parameter 'nptx' (it has: avic, dump_invalid_vmcb, nested, npt)", nullptr},
        {"npt=1", "npt=1", "give kvm_amd the same parameters", nullptr},
        {"npt=1", "npt", "--b 'npt': 'npt' is not PARAM=VALUE", nullptr},
        {"npt=1", "npt=0", "kvm_amd is not loaded on this host",
         [](test::FakeModules& h) { h.mods["kvm_amd"].loaded = false; }},
    };
    for (const auto& c : cases) {
        auto h = amd_host();
        if (c.setup) c.setup(h);
        try {
            lab::run_module_ab(spec(c.a, c.b), h, runner(h), kLabels, 0.05, stop);
            ADD_FAILURE() << c.why;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(c.why), std::string::npos) << e.what();
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
        }
        EXPECT_TRUE(h.log.empty()) << c.why << ": " << h.log.front();
    }
}

// kvm is held by kvm_amd, so kvm's VM user counts through it.
TEST(ModuleAb, AVmOnTheVendorModuleHoldsKvmToo) {
    auto h = amd_host();
    h.mods["kvm_amd"].users = 2;
    std::atomic<bool> stop{false};
    lab::ModuleAbSpec s{"kvm", {"nx_huge_pages=N", "nx_huge_pages=Y"}, 3, {"run", "cpuid"}};
    EXPECT_THROW(lab::run_module_ab(s, h, runner(h), kLabels, 0.05, stop), InputError);
    EXPECT_TRUE(h.log.empty());
}

TEST(ModuleAb, ReloadingKvmTakesTheVendorModuleDownAndBackWithItsParameters) {
    auto h = amd_host();
    h.mods["kvm_amd"].values["dump_invalid_vmcb"] = "Y";  // set at run time before the A/B: kept
    std::atomic<bool> stop{false};
    lab::ModuleAbSpec s{"kvm", {"nx_huge_pages=N", "nx_huge_pages=Y"}, 3, {"run", "cpuid"}};
    auto out = lab::run_module_ab(s, h, runner(h), kLabels, 0.05, stop);
    EXPECT_EQ(h.log[0], "unload kvm_amd");
    EXPECT_EQ(h.log[1], "unload kvm");
    EXPECT_EQ(h.log[2], "load kvm nx_huge_pages=N");
    EXPECT_EQ(h.log[3], "load kvm_amd");
    EXPECT_TRUE(out.restore_ok) << out.restored.back();
    EXPECT_EQ(h.mods["kvm_amd"].values["dump_invalid_vmcb"], "Y");
    EXPECT_EQ(h.log.back(), "load kvm_amd dump_invalid_vmcb=Y");
}

// A value modprobe refuses, or one the module does not take, is found before
// the first run; the module is restored, then the one line.
TEST(ModuleAb, ARefusedValueIsFoundBeforeMeasuringAndTheModuleRestored) {
    for (auto [b, why] : {std::pair{"npt=bad", "B's parameters are refused: modprobe kvm_amd npt=bad: Invalid argument"},
                          std::pair{"avic=1", "kvm_amd took avic=1 but reads it back as N"}}) {
        auto h = amd_host();
        auto before = h.params("kvm_amd");
        std::atomic<bool> stop{false};
        int runs = 0;
        auto count = [&](const std::vector<std::string>&) { return ++runs, lab::SlotRun{0, run_at(1000)}; };
        try {
            lab::run_module_ab(spec("npt=1", b), h, count, kLabels, 0.05, stop);
            ADD_FAILURE() << b;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
        }
        EXPECT_EQ(runs, 0);
        EXPECT_EQ(h.params("kvm_amd"), before) << b;
        EXPECT_FALSE(lab::module_change_active());
    }
}

TEST(ModuleAb, AnInterruptOrAFailedRunStopsThereAndRestores) {
    for (bool interrupt : {true, false}) {
        auto h = amd_host();
        auto before = h.params("kvm_amd");
        std::atomic<bool> stop{false};
        int runs = 0;
        auto r = [&](const std::vector<std::string>&) {
            if (++runs < 3) return lab::SlotRun{0, run_at(1000)};
            if (interrupt) stop = true;
            return lab::SlotRun{interrupt ? 130 : 2, std::nullopt};
        };
        auto out = lab::run_module_ab(spec("npt=1", "npt=0"), h, r, kLabels, 0.05, stop);
        EXPECT_EQ(out.interrupted, interrupt);
        EXPECT_EQ(out.failure.empty(), interrupt) << out.failure;
        EXPECT_EQ(out.sides[0].size() + out.sides[1].size(), 2u);
        ASSERT_TRUE(out.cmp);
        EXPECT_EQ(out.cmp->tests[0].vs_first[0].verdict, suite::Verdict::NotTestable);
        EXPECT_TRUE(out.restore_ok);
        EXPECT_EQ(h.params("kvm_amd"), before);
    }
}

} // namespace
