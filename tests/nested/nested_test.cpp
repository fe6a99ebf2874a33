// exitbench inside a real kvm_amd: QEMU TCG emulates an EPYC with SVM+NPT and
// Debian's kernel loads kvm_amd there (exitbench boot --exec, tests/nested/in-svm.sh). One boot
// runs tests/nested/in-guest.sh; each TEST checks one of its sections.
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "../integration/cli_runner.h"
#include "result/json.h"
#include "suite/registry.h"
#include "tests/paths.h"

using namespace eb;

namespace {

struct Section {
    std::string out;
    int rc = -1;
};

class Nested : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        CliOptions o;
        // Two L1 CPUs, so the IPI tests' two vCPUs are not overcommitted.
        o.wrap = {"bash", eb::test::nested_script(), eb::test::exitbench_binary(), "--cpus", "2", "--boot-timeout", "480s",
                  "--add", eb::test::exitbench_binary(), "--add", eb::test::guest_script(), "--", "sh",
                  eb::test::guest_script()};
        o.timeout_s = 600;
        auto r = run_cli({}, o);
        harness_rc_ = r.rc;
        harness_err_ = r.err;
        std::string* cur = nullptr;
        std::istringstream in(r.out);
        std::string line;
        std::smatch m;
        while (std::getline(in, line)) {
            if (std::regex_match(line, m, std::regex("@@section (\\w+)"))) {
                cur = &sections_[m[1]].out;
            } else if (std::regex_match(line, m, std::regex("@@rc (\\d+)")) && cur) {
                for (auto& [k, v] : sections_)
                    if (&v.out == cur) v.rc = std::stoi(m[1]);
                cur = nullptr;
            } else if (cur) {
                *cur += line + "\n";
            }
        }
    }

    static const Section& section(const std::string& name) {
        EXPECT_EQ(harness_rc_, 0) << harness_err_;
        auto it = sections_.find(name);
        if (it == sections_.end()) throw std::runtime_error("no section " + name + "; " + harness_err_);
        return it->second;
    }

    static inline int harness_rc_ = -1;
    static inline std::string harness_err_;
    static inline std::map<std::string, Section> sections_;
};


} // namespace

TEST_F(Nested, ListReportsTheSvmBackend) {
    const auto& s = section("list");
    EXPECT_EQ(s.rc, 0);
    EXPECT_NE(s.out.find("KVM backend here: svm"), std::string::npos) << s.out;
}

TEST_F(Nested, EveryTestRunsAndItsExitsAreVerified) {
    const auto& s = section("run");
    EXPECT_TRUE(s.rc == 0 || s.rc == 1) << s.out;  // 1: a tolerated hang, checked below
    auto rep = result::from_json(nlohmann::json::parse(s.out));
    EXPECT_EQ(rep.host.backend, vmm::Backend::Svm);
    EXPECT_EQ(rep.host.backend_module, "kvm_amd");
    for (const auto& t : rep.results) {
        SCOPED_TRACE(t.name + " (" + suite::status_name(t.status) + "): " + t.detail);
        const auto* spec = suite::find_test(t.name);
        ASSERT_NE(spec, nullptr);
        if (t.status == suite::Status::Skipped) {
            EXPECT_FALSE(t.detail.empty());  // never silently
            continue;
        }
        // Under TCG, SVM has no NRIP save and kvm_amd emulates instruction skips; there a
        // `sti; hlt` now and then never wakes up (seen in about 1 of 6 runs of the
        // x2APIC SELF_IPI variants). The watchdog must turn that into `hung`.
        if (t.status == suite::Status::Hung && (t.name.ends_with("sti_hlt") || t.name == "hlt_wake")) {
            EXPECT_NE(t.detail.find("watchdog"), std::string::npos);
            continue;
        }
        // QEMU's TCG executes XSETBV without checking the SVM intercept (its helper_xsetbv
        // has no intercept check), so there is no exit to measure. Real SVM intercepts it.
        if (t.name == "xsetbv" && t.status == suite::Status::Mismatch) {
            EXPECT_LT(*t.exits.measured, 0.05);
            continue;
        }
        // Real SVM counts every exit: nothing may stay unverified.
        ASSERT_TRUE(t.exits.measured);
        if (spec->expect.may_be_zero)
            EXPECT_TRUE(t.status == suite::Status::Ok || t.status == suite::Status::NoExit);
        else
            EXPECT_EQ(t.status, suite::Status::Ok);
    }
    // VMMCALL must complete on real SVM (it livelocks on the software backend).
    const auto& vmcall = find(rep, "vmcall");
    EXPECT_EQ(vmcall.status, suite::Status::Ok);
    EXPECT_NEAR(*vmcall.exits.measured, 1.0, 0.1);
    EXPECT_NEAR(vmcall.kvm_stats_per_iter.at("hypercalls"), 1.0, 0.1);
    // SVM does not intercept these here: reported as "no exit", not as a cost.
    for (const char* n : {"mov_from_cr8", "mov_to_cr8", "wr_kernel_gs_base"}) {
        EXPECT_EQ(find(rep, n).status, suite::Status::NoExit) << n;
        EXPECT_NE(find(rep, n).detail.find("no exit measured"), std::string::npos) << n;
    }
    for (const char* n : {"cpuid", "inl_from_kernel", "outl_to_kernel", "rd_tsc_adjust_msr",
                          "wr_tsc_adjust_msr", "wbinvd", "invd"})
        EXPECT_NEAR(*find(rep, n).exits.measured, 1.0, 0.1) << n;
    EXPECT_NEAR(find(rep, "inl_from_kernel").kvm_stats_per_iter.at("io_exits"), 1.0, 0.1);
    // Every interrupt a test expects arrives on real SVM, in every KUT window.
    for (const auto& t : rep.results) {
        const auto* spec = suite::find_test(t.name);
        if (spec->expect.irqs_per_iter && t.irqs_per_iter && t.status != suite::Status::Hung) {
            EXPECT_NEAR(*t.irqs_per_iter, *spec->expect.irqs_per_iter, 0.05) << t.name;
        }
    }
    EXPECT_EQ(find(rep, "ipi").vcpus, 2u);
    EXPECT_FALSE(find(rep, "ipi").ipi_latency_cycles.empty());
    // Exits beyond vmexit.flat, on real SVM.
    EXPECT_EQ(find(rep, "hypercall_to_user").status, suite::Status::Ok);
    EXPECT_EQ(find(rep, "npf_first_touch").status, suite::Status::Ok);
    EXPECT_NEAR(find(rep, "irq_window").kvm_stats_per_iter.at("irq_window_exits"), 1.0, 0.1);
    EXPECT_GE(find(rep, "nmi_window").kvm_stats_per_iter.at("nmi_window_exits"), 0.9);
    EXPECT_NEAR(*find(rep, "nmi_window").irqs_per_iter, 2.0, 0.05);
    for (const char* n : {"mmio-wildcard-eventfd:pci-mem", "portio-datamatch-eventfd:pci-io"})
        EXPECT_EQ(find(rep, n).host_checks.at(0), "ioeventfd fired 256 times for 256 guest writes");
}

TEST_F(Nested, WatchdogStopsAHungGuest) {
    const auto& s = section("hang");
    EXPECT_EQ(s.rc, 1);
    auto rep = result::from_json(nlohmann::json::parse(s.out));
    EXPECT_EQ(find(rep, "selftest_hang").status, suite::Status::Hung);
}

TEST_F(Nested, KvmExitTracepointsMatchTheIterations) {
    const auto& s = section("trace");
    EXPECT_EQ(s.rc, 0);
    std::map<unsigned, uint64_t> hits;
    std::regex row(R"(\{ exit_reason:\s*([0-9a-f]+) \} hitcount:\s*(\d+))");
    for (std::sregex_iterator it(s.out.begin(), s.out.end(), row), end; it != end; ++it)
        hits[std::stoul((*it)[1], nullptr, 16)] = std::stoull((*it)[2]);
    // SVM_EXIT_CPUID: one warm-up batch and three measured ones of 64.
    EXPECT_EQ(hits[0x72], 4u * 64) << s.out;
}

TEST_F(Nested, RunProfilePairsKvmExitWithKvmEntry) {
    const auto& s = section("profile_run");
    EXPECT_EQ(s.rc, 0) << s.out;
    auto rep = result::from_json(nlohmann::json::parse(s.out));
    const auto& cpuid = find(rep, "cpuid");
    ASSERT_TRUE(cpuid.host_profile);
    EXPECT_EQ(cpuid.host_profile->reason, "cpuid");
    EXPECT_EQ(cpuid.host_profile->count, 4u * 64);  // one warm-up and three measured batches
    EXPECT_GT(cpuid.host_profile->mean_ns, 0);
    const auto& msr = find(rep, "rd_tsc_adjust_msr");
    ASSERT_TRUE(msr.host_profile);
    EXPECT_EQ(msr.host_profile->reason, "msr");
    EXPECT_GE(msr.host_profile->count, 4u * 64);  // plus the runtime's few APIC/EFER accesses
    EXPECT_LT(msr.host_profile->count, 4u * 64 + 16);
}

TEST_F(Nested, ProfileRecordAndPerfStyleReport) {
    const auto& s = section("profile_record");
    EXPECT_EQ(s.rc, 0) << s.out;
    // perf kvm stat's row: name, Samples, Samples%, Time%, Min, Max, Avg, ( +-x% ).
    std::smatch m;
    ASSERT_TRUE(std::regex_search(s.out, m, std::regex(R"(\s+cpuid\s+(\d+)\s+[\d.]+%\s+[\d.]+%\s+[\d.]+us\s+[\d.]+us\s+[\d.]+us \( \+-\s*[\d.]+% \))")))
        << s.out;
    EXPECT_EQ(std::stoul(m[1]), 4u * 64);
    EXPECT_NE(s.out.find("Total Samples:"), std::string::npos);
}

// compare --host-profile against kvm_amd: the two IPI paths leave the exit
// through different KVM functions (the xAPIC ICR write is an MMIO write KVM
// emulates; the x2APIC one a WRMSR it completes without the emulator), so
// the differential names at least one KVM function that moved, with its
// verdict. Which one clears the family's bar varies from boot to boot under
// TCG (x86_emulate_insn slower on the xAPIC side in one, the WRMSR
// completion kvm_complete_insn_gp faster in another), so none is required.
TEST_F(Nested, CompareHostProfileNamesWhatMoved) {
    const auto& s = section("compare_host_profile");
    EXPECT_EQ(s.rc, 0) << s.out;
    EXPECT_NE(s.out.find("host profile, xAPIC (MMIO) vs x2APIC (MSR)"), std::string::npos) << s.out;
    EXPECT_TRUE(std::regex_search(
        s.out, std::regex(R"(\S+ \[kvm(_amd)?\]\s+[\d.]+\s+[\d.]+\s+[+-][\d.]+\s+\[[^\]]+\]\s+\S+ (slower|faster))")))
        << s.out;
}

// run --host-profile against kvm_amd: kernel frames named from kallsyms with
// their module, guest-mode samples apart, and folded stacks rooted at the test.
TEST_F(Nested, HostProfileNamesTheKvmExitPath) {
    const auto& s = section("host_profile");
    EXPECT_EQ(s.rc, 0) << s.out;
    auto at = s.out.find("@@folded\n");
    ASSERT_NE(at, std::string::npos) << s.out;
    std::string table = s.out.substr(0, at), folded = s.out.substr(at + 9);
    EXPECT_NE(table.find("host profile: cpuid"), std::string::npos) << table;
    EXPECT_NE(table.find("sampling overhead"), std::string::npos) << table;
    // A row: name, self n, self ns and cycles with errors, total n, total ns and cycles with errors.
    EXPECT_TRUE(std::regex_search(table, std::regex(R"(kvm_arch_vcpu_ioctl_run \[kvm\]\s+\d+\s+[\d.]+ ±[\d.]+\s+[\d.]+ ±[\d.]+\s+[1-9]\d*\s)")))
        << table;
    EXPECT_NE(table.find("[guest"), std::string::npos) << table;  // "[guest mode, or ...]" under cpu-clock
    EXPECT_EQ(table.find("[kernel: names hidden]"), std::string::npos) << table;
    std::istringstream in(folded);
    std::string line;
    int lines = 0, kvm = 0;
    while (std::getline(in, line)) {
        ++lines;
        EXPECT_TRUE(std::regex_match(line, std::regex(R"(cpuid(;[^;]+)+ [1-9]\d*)"))) << line;
        kvm += line.find(" [kvm];") != std::string::npos || line.find(" [kvm] ") != std::string::npos;
    }
    EXPECT_GT(lines, 1);
    EXPECT_GT(kvm, 0) << folded;
}

// Ctrl-C and SIGTERM while run --host-profile samples its second test:
// exit 130, the second test interrupted mid-way, the first's result and stacks kept,
// and no perf event left open in any process of the guest (the profiler's
// events and reader thread were seen alive just before the signal).
TEST_F(Nested, HostProfileStopsPromptlyOnASignal) {
    for (const char* sig : {"INT", "TERM"}) {
        SCOPED_TRACE(std::string("SIG") + sig);
        const auto& s = section(std::string("host_profile_sig") + sig);
        auto at = s.out.find("@@json\n");
        ASSERT_NE(at, std::string::npos) << s.out;
        std::map<std::string, std::string> kv;
        std::istringstream in(s.out.substr(0, at));
        for (std::string line; std::getline(in, line);)
            if (auto eq = line.find('='); eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
        ASSERT_EQ(kv["phase"], "3") << "the second test never sampled: " << s.out;
        EXPECT_GE(std::stoi(kv["perf_fds_before"]), 1) << s.out;  // the check sees open events
        EXPECT_GE(std::stoi(kv["threads_before"]), 3) << s.out;   // main, vCPU, the sampler's reader
        EXPECT_EQ(s.rc, 130) << s.out;
        EXPECT_EQ(kv["perf_fds_after"], "0") << s.out;
        EXPECT_NE(kv["folded_tests"].find("cpuid "), std::string::npos) << s.out;
        auto rep = result::from_json(nlohmann::json::parse(s.out.substr(at + 7)));
        EXPECT_TRUE(rep.interrupted);
        EXPECT_EQ(find(rep, "cpuid").status, suite::Status::Ok);
        // The VM was kicked out of KVM_RUN at once, not left to finish its
        // eight sampled repeats: the second test is recorded as interrupted.
        EXPECT_EQ(find(rep, "rd_tsc_adjust_msr").status, suite::Status::Interrupted) << s.out;
    }
}
