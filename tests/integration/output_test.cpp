// Output formats parse back; Ctrl-C keeps what finished.
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "cli_runner.h"
#include "tests/temp_dir.h"
#include "result/json.h"

using namespace eb;

namespace {
} // namespace

// Each test writes its files into a fresh directory of its own.
class Output : public eb::test::TempDirTest {};

KVM_TEST_F(Output, KutFormatMatchesVmexitFlatLines) {
    auto r = run_cli({"run", "cpuid", "inl_from_qemu", "-n", "64", "-r", "2", "--format", "kut"});
    ASSERT_EQ(r.rc, 0) << r.err;
    std::istringstream in(r.out);
    std::string line;
    std::vector<std::string> names;
    while (std::getline(in, line)) {
        std::smatch m;
        ASSERT_TRUE(std::regex_match(line, m, std::regex(R"(([a-z0-9_:-]+) (\d+))"))) << line;
        names.push_back(m[1]);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"baseline", "cpuid", "inl_from_qemu"}));
}

KVM_TEST_F(Output, JsonFileIsCompleteAndParsesBack) {
    auto path = temp_path("run.json");
    auto r = run_cli({"run", "cpuid", "-n", "64", "-r", "4", "--json", path});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto j = nlohmann::json::parse(slurp(path));
    auto rep = result::from_json(j);
    ASSERT_EQ(rep.results.size(), 2u);
    EXPECT_EQ(rep.results[1].sessions.at(0).samples.size(), 4u);
    EXPECT_FALSE(rep.host.cpu_model.empty());
    EXPECT_FALSE(rep.host.kernel_release.empty());
    EXPECT_GT(rep.host.tsc_mhz, 100);
    EXPECT_NE(rep.host.backend, vmm::Backend::Unknown);
    EXPECT_TRUE(j["results"][1]["summary"]["minus_baseline_cycles"].is_number());
    // The table went to stdout meanwhile.
    EXPECT_NE(r.out.find("cycles/iter"), std::string::npos);
}

KVM_TEST_F(Output, CtrlCKeepsFinishedResults) {
    auto path = temp_path("interrupted.json");
    CliOptions o;
    o.sigint_after_s = 1.5;
    auto r = run_cli({"run", "cpuid", "selftest_hang", "--watchdog", "60s", "-n", "64", "-r", "2", "--sessions", "1",
                      "--json", path}, o);
    EXPECT_EQ(r.rc, 130) << r.err;
    EXPECT_NE(r.out.find("interrupted"), std::string::npos) << r.out;
    auto rep = result::from_json(nlohmann::json::parse(slurp(path)));
    EXPECT_TRUE(rep.interrupted);
    ASSERT_EQ(rep.results.size(), 3u);
    EXPECT_EQ(rep.results[1].name, "cpuid");
    EXPECT_EQ(rep.results[1].sessions.at(0).samples.size(), 2u);
    EXPECT_EQ(rep.results[2].status, suite::Status::Interrupted);
}

KVM_TEST_F(Output, ListShowsEveryTestWithItsExit) {
    auto r = run_cli({"list"});
    ASSERT_EQ(r.rc, 0) << r.err;
    for (const char* s : {"cpuid", "vmcall", "inl_from_qemu", "mmio_from_user", "1 kernel exit",
                          "1 user-io exit", "may measure no exit", "KVM backend here"})
        EXPECT_NE(r.out.find(s), std::string::npos) << s;
    EXPECT_EQ(r.out.find("selftest_hang"), std::string::npos);
    EXPECT_NE(run_cli({"list", "--all"}).out.find("selftest_hang"), std::string::npos);
}

TEST_F(Output, EnvPrintsTheHostFacts) {
    auto r = run_cli({"env"});
    ASSERT_EQ(r.rc, 0) << r.err;
    for (const char* k : {"cpu.microcode", "kernel.cmdline", "vulnerability.", "kvm.backend", "kvm.param.kvm.",
                          "tsc.mhz", "smt.control", "cpufreq.governor", "cpu.isolated", "msr.spec_ctrl.cpu0"})
        EXPECT_NE(r.out.find(k), std::string::npos) << k;
}

KVM_TEST_F(Output, JsonEmbedsTheEnvironment) {
    auto r = run_cli({"run", "cpuid", "-n", "16", "-r", "1", "--format", "json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_TRUE(j["env"].contains("kernel.cmdline"));
    EXPECT_TRUE(j["env"].contains("cpu.microcode"));
}

KVM_TEST_F(Output, RecipeRunsItsConfigurationsSideBySide) {
    auto path = temp_path("recipe.json");
    auto r = run_cli({"recipe", "run", "efer-switch", "-n", "32", "--rounds", "2", "--json", path});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("preconditions:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("load_efer"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("inl_from_qemu"), std::string::npos);
    auto doc = nlohmann::json::parse(slurp(path));
    // The seed's three cases: EFER equal, NX differing, SCE differing as vmexit.flat's guest.
    EXPECT_EQ(doc["labels"], (std::vector<std::string>{"EFER = host's (NX on, SCE on)", "NX off (atomic switch)",
                                                       "SCE off, as vmexit.flat (user-return switch)"}));
    bool found = false;
    for (const auto& t : doc["tests"])
        if (t["test"] == "inl_from_qemu") {
            found = true;
            EXPECT_EQ(t["configs"][0]["unit_medians_cycles"].size(), 2u);  // one per round
            EXPECT_EQ(t["configs"][0]["repeats_per_session"], 3);
            for (const auto& e : t["vs_first"]) {
                if (doc["not_answerable"].empty()) continue;
                EXPECT_EQ(e["verdict"], "not testable");  // no verdict where a precondition fails
                EXPECT_EQ(e["why_not_testable"].get<std::string>().rfind("not answerable on this host: ", 0), 0u) << e;
            }
        }
    EXPECT_TRUE(found);
    EXPECT_NE(run_cli({"recipe", "list"}).out.find("bhi-spec-ctrl"), std::string::npos);
}

// Where a precondition fails (kvm_pvm has no VMX), one round still runs to
// read the knobs back, and every read-back that differs is among the reasons.
KVM_TEST_F(Output, RecipeNotAnswerableSaysWhy) {
    auto path = temp_path("bhi.json");
    auto r = run_cli({"recipe", "run", "bhi-spec-ctrl", "-n", "16", "--no-save", "--json", path});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto doc = nlohmann::json::parse(slurp(path));
    bool pvm = r.out.find("/dev/kvm is kvm_pvm") != std::string::npos;
    if (pvm) {
        EXPECT_NE(r.out.find("not answerable on this host: "), std::string::npos) << r.out;
        EXPECT_FALSE(doc["not_answerable"].empty());
        EXPECT_NE(r.out.find("one round runs"), std::string::npos) << r.out;
    }
    for (const auto& w : doc["warnings"]) {
        if (w.get<std::string>().find("configuration not testable: ") == std::string::npos) continue;
        bool listed = false;
        for (const auto& n : doc["not_answerable"]) listed = listed || n == w;
        EXPECT_TRUE(listed) << w << " is not among " << doc["not_answerable"];
    }
    for (const auto& t : doc["tests"])
        for (const auto& e : t["vs_first"])
            if (!doc["not_answerable"].empty()) {
                EXPECT_EQ(e["verdict"], "not testable") << e;
            }
}

TEST_F(Output, RecipeShowPrintsTheSeedAndWhatIsLeft) {
    auto r = run_cli({"recipe", "show", "bhi-spec-ctrl"});
    ASSERT_EQ(r.rc, 0) << r.err;
    for (const char* part : {"question: ", "tscdeadline_immed 3878", "tscdeadline_immed 4011", "configurations",
                             "preconditions:", "host_bhi_dis_s", "manual steps left:", "spectre_bhi=vmexit"})
        EXPECT_NE(r.out.find(part), std::string::npos) << part << " in:\n" << r.out;
    r = run_cli({"recipe", "show", "efer-swich"});
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("did you mean 'efer-switch'"), std::string::npos) << r.err;
}
