// --export-text for the kvm list: every line within 78 columns, whatever the
// names; the Test System block with what differs between the sides; the
// exact command; the regressed test marked.
#include <gtest/gtest.h>
#include <sstream>

#include "report/gate_view.h"
#include "report/list_text.h"
#include "sample_report.h"
#include "suite/compare.h"

using namespace eb;

namespace {

void expect_narrow(const std::string& text) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) EXPECT_LE(line.size(), report::kListColumns) << "'" << line << "'";
}

suite::RunReport host(const std::string& avic, const std::string& bhi) {
    auto r = sample_report();
    r.env = {{"cpu.model", "AMD EPYC 7B13 64-Core Processor"}, {"cpu.vendor", "AuthenticAMD"}, {"cpu.family", "25"},
             {"cpu.model_id", "1"}, {"cpu.stepping", "1"}, {"cpu.microcode", "0xa0011d1"}, {"cpu.online", "128"},
             {"kernel.release", "6.1.0-27-amd64"}, {"kernel.cmdline.mitigations", "not set"},
             {"kernel.cmdline.spectre_bhi", bhi}, {"kvm.module", "kvm_amd"}, {"kvm.backend", "svm"},
             {"kvm.param.kvm_amd.avic", avic}, {"kvm.param.kvm_amd.npt", "Y"}};
    r.provenance.argv = {"/usr/local/bin/exitbench", "run", "--sessions", "3", "a test name that is very long indeed"};
    r.results[1].name = "cpuid_with_a_name_far_too_long_for_any_column";
    return r;
}

} // namespace

TEST(ListText, ARunFitsTheListWithItsSystemAndCommand) {
    auto text = report::list_text(host("0", "on"));
    expect_narrow(text);
    EXPECT_NE(text.find("Test System\n  CPU          AMD EPYC 7B13"), std::string::npos) << text;
    EXPECT_NE(text.find("microcode 0xa0011d1"), std::string::npos) << text;
    EXPECT_NE(text.find("Mitigations  spectre_bhi=on\n"), std::string::npos) << text;
    EXPECT_NE(text.find("KVM          kvm_amd (svm)"), std::string::npos) << text;
    EXPECT_NE(text.find("Command      exitbench run --sessions 3 'a test name that"), std::string::npos) << text;
    EXPECT_NE(text.find("\nvmcall "), std::string::npos) << text;  // a hung test has its line
}

TEST(ListText, ACompareSaysWhatDiffersAndMarksTheRegression) {
    auto a = host("0", "on"), b = host("1", "off");
    for (auto& t : b.results)
        for (auto& s : t.sessions)
            for (auto& x : s.samples) x *= 1.5;
    report::Comparison c{suite::compare_saved({"before", "after: avic=1 with a label long enough to fold twice over the "
                                                           "width of a mail reader's window"},
                                              {{a, a, a}, {b, b, b}}),
                         {"saved results: 3 vs 3 run(s)"}};
    c.command = {"exitbench", "compare", "label:before", "label:after", "--fail-if-slower", "5"};
    c.gate = report::gate_view(c.report, 5);  // --fail-if-slower 5
    auto text = report::list_text(c);
    expect_narrow(text);
    EXPECT_NE(text.find("kvm.param.kvm_amd.avic: A=0 B=1"), std::string::npos) << text;
    EXPECT_NE(text.find("kernel.cmdline.spectre_bhi: A=on B=off"), std::string::npos) << text;
    EXPECT_EQ(text.find("kvm_amd.npt:"), std::string::npos) << text;  // the same on both sides
    EXPECT_NE(text.find("Command      exitbench compare label:before label:after --fail-if-slower 5"),
              std::string::npos) << text;
    EXPECT_NE(text.find("REGRESSION"), std::string::npos) << text;
    EXPECT_NE(text.find("+50.00%"), std::string::npos) << text;
}

TEST(ListText, FoldNeverLeavesALineTooLong) {
    auto lines = report::fold("  lead   ", std::string(200, 'x') + " short " + std::string(90, 'y'));
    for (const auto& l : lines) EXPECT_LE(l.size(), report::kListColumns) << l;
    EXPECT_EQ(lines.front().rfind("  lead   ", 0), 0u);
    EXPECT_EQ(report::fold("a ", "").size(), 1u);
}
