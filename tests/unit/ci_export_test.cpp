// The KTAP and JUnit exporters: KTAP's grammar checked line by line (version,
// plan equal to the results, numbering, SKIP, "# " diagnostics, indented
// subtests), JUnit's escaping of hostile names, and the JUnit files against
// the schema the project ships (tests/schema/junit.xsd), through xmllint.
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>

#include "report/exporter.h"
#include "report/junit.h"
#include "report/ktap.h"
#include "sample_report.h"
#include "tests/temp_dir.h"
#include "tests/paths.h"

using namespace eb;

namespace {

suite::RunReport sample_report_on(vmm::Backend b) {
    auto r = sample_report();
    r.host.backend = b;
    return r;
}

suite::RunReport scaled(double factor) {
    suite::RunReport r = sample_report();
    for (auto& t : r.results)
        for (auto& s : t.sessions)
            for (auto& x : s.samples) x *= factor;
    return r;
}

// Three runs a side that differ a little, as real runs do (identical runs
// have no spread to test against), and B 10% slower.
report::Comparison three_runs_a_side(const std::string& label_b = "b.json") {
    std::vector<suite::RunReport> a{scaled(1.0), scaled(1.004), scaled(0.997)};
    std::vector<suite::RunReport> b{scaled(1.1), scaled(1.103), scaled(1.098)};
    return {suite::compare_saved({"a.json", label_b}, {a, b}), {"saved results: 3 vs 3 file(s)"}};
}

std::vector<std::string> lines(const std::string& s) {
    std::vector<std::string> out;
    size_t at = 0;
    for (size_t nl; (nl = s.find('\n', at)) != std::string::npos; at = nl + 1) out.push_back(s.substr(at, nl - at));
    EXPECT_EQ(at, s.size()) << "the last line has no newline";
    return out;
}

// Checks one KTAP block at `indent` from lines[i] on, as ktap.rst lays it out;
// returns the number of its results and leaves i after its last line.
size_t check_block(const std::vector<std::string>& ls, size_t& i, const std::string& indent) {
    static const std::regex result(R"(^(ok|not ok) (\d+) ([^#]+?)( # (SKIP|XFAIL|TIMEOUT|ERROR)( \S.*)?)?$)");
    static const std::regex plan(R"(^1\.\.(\d+)$)");
    EXPECT_EQ(ls.at(i++), indent + "KTAP version 1");
    while (i < ls.size() && ls[i].starts_with(indent + "# ")) ++i;  // e.g. "# Subtest: name"
    std::smatch m;
    std::string p = ls.at(i++).substr(indent.size());
    if (!std::regex_match(p, m, plan)) {
        ADD_FAILURE() << "no plan after the version line: " << p;
        return 0;
    }
    size_t planned = std::stoul(m[1]), seen = 0;
    while (i < ls.size() && ls[i].starts_with(indent)) {
        std::string l = ls[i].substr(indent.size());
        if (l.starts_with("  KTAP version 1")) {
            check_block(ls, i, indent + "  ");  // then the parent's result line, checked below
            if (i == ls.size()) break;
            l = ls[i].substr(indent.size());
        } else if (l.starts_with("# ")) {
            ++i;
            continue;
        }
        if (!std::regex_match(l, m, result)) {
            ADD_FAILURE() << "neither result nor '# ' diagnostic: " << ls[i++];
            continue;
        }
        EXPECT_EQ(std::stoul(m[2]), ++seen) << ls[i];
        ++i;
    }
    EXPECT_EQ(seen, planned) << "the plan counts the results";
    return seen;
}

void check_ktap(const std::string& doc) {
    auto ls = lines(doc);
    size_t i = 0;
    check_block(ls, i, "");
    EXPECT_EQ(i, ls.size()) << "lines after the top level's last result";
}

bool have(const char* tool) { return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0; }

} // namespace

TEST(Ktap, RunIsAVersionAPlanAndOneResultPerTest) {
    auto out = report::ktap_exporter()->render(sample_report());
    check_ktap(out);
    auto ls = lines(out);
    EXPECT_EQ(ls[0], "KTAP version 1");
    EXPECT_EQ(ls[1], "1..4");
    EXPECT_NE(out.find("\nok 1 baseline\n"), std::string::npos) << out;
    EXPECT_NE(out.find("\nok 2 cpuid\n"), std::string::npos) << out;
    EXPECT_NE(out.find("\nok 3 ipi # SKIP needs 2 vCPUs\n"), std::string::npos) << out;
    // A hang is ktap.rst's TIMEOUT, with the watchdog's time.
    EXPECT_NE(out.find("\nnot ok 4 vmcall # TIMEOUT no guest progress for 3 s\n"), std::string::npos) << out;
    // The figures and the failure's reason come just before its result line.
    EXPECT_NE(out.find("# cpuid: cycles_per_iter=1234.7 ci95_lo="), std::string::npos) << out;
    EXPECT_NE(out.find("# vmcall (hung): rip=0x1\nnot ok 4 vmcall # TIMEOUT"), std::string::npos) << out;
}

TEST(Ktap, CompareNestsTheConfigurationsAsSubtests) {
    auto out = report::ktap_exporter()->render(three_runs_a_side());
    check_ktap(out);
    EXPECT_EQ(out.rfind("KTAP version 1\n1..4\n", 0), 0u) << out;
    EXPECT_NE(out.find("\n  KTAP version 1\n  # Subtest: cpuid\n  1..2\n"), std::string::npos) << out;
    EXPECT_NE(out.find("  ok 2 b.json\nok 2 cpuid\n"), std::string::npos) << out;
    EXPECT_NE(out.find("verdict=slower"), std::string::npos) << out;
    // Every configuration of ipi skipped: the parent is a skip; vmcall hung in both: not ok.
    EXPECT_NE(out.find("\nok 3 ipi # SKIP every configuration skipped\n"), std::string::npos) << out;
    EXPECT_NE(out.find("  not ok 1 a.json # TIMEOUT rip=0x1\n"), std::string::npos) << out;
    EXPECT_NE(out.find("\nnot ok 4 vmcall\n"), std::string::npos) << out;
    // A configuration that measured nothing has no geometric mean (the grid's cell says 0).
    EXPECT_NE(out.find("# ipi a.json: role=reference units=0 sessions=0\n"), std::string::npos) << out;
}

TEST(Ktap, HostileNamesStayOnTheirLineAndCannotStartADirective) {
    auto r = sample_report();
    r.results[1].name = "evil # SKIP\nok 9 forged\x1b[2J";
    r.results[3].detail = "line one\nnot ok 7 forged too\n\n";
    auto out = report::ktap_exporter()->render(r);
    check_ktap(out);
    EXPECT_NE(out.find("\nok 2 evil \\x23 SKIP\\x0aok 9 forged\\x1b[2J\n"), std::string::npos) << out;
    EXPECT_NE(out.find("\n# vmcall (hung): line one\n# not ok 7 forged too\nnot ok 4 vmcall # TIMEOUT"), std::string::npos)
        << out;
    EXPECT_EQ(report::ktap_description(""), "unnamed");
    EXPECT_EQ(report::ktap_diagnostics("a\n\nb\x07"), (std::vector<std::string>{"# a", "# b\\x07"}));
}

TEST(Ktap, NothingRunIsAPlanOfZeroSkipped) {
    EXPECT_EQ(report::ktap_skip_all("cannot open /dev/kvm: No such file\nmore"),
              "KTAP version 1\n1..0 # SKIP cannot open /dev/kvm: No such file\n");
}

// A failure the backend's known limitation explains is kselftest's XFAIL: an
// "ok" line that says so, its reason still in the diagnostics.
TEST(Ktap, AKnownBackendLimitationIsAnExpectedFailure) {
    auto r = sample_report();
    r.host.backend = vmm::Backend::Pvm;
    auto out = report::ktap_exporter()->render(r);
    check_ktap(out);
    EXPECT_NE(out.find("\nok 4 vmcall # XFAIL kvm_pvm livelocks on a CPL0 VMCALL/VMMCALL"), std::string::npos) << out;
    EXPECT_NE(out.find("# vmcall (hung): rip=0x1\n"), std::string::npos) << out;
    // An error is the host's failure: never expected.
    r.results[3].status = suite::Status::Error;
    r.results[3].detail = "KVM_RUN: EFAULT";
    out = report::ktap_exporter()->render(r);
    EXPECT_NE(out.find("\nnot ok 4 vmcall # ERROR KVM_RUN: EFAULT\n"), std::string::npos) << out;
    auto xml = report::junit_exporter()->render(sample_report_on(vmm::Backend::Pvm));
    EXPECT_NE(xml.find("<skipped message=\"expected failure: rip=0x1\" type=\"xfail\">"), std::string::npos) << xml;
    EXPECT_NE(xml.find("failures=\"0\""), std::string::npos) << xml;
}

// --fail-if-slower: the regressed configuration is "not ok" with the change,
// its interval and p in its diagnostic, and so is its test; JUnit fails it.
TEST(Ktap, AGateMarksTheRegressedConfiguration) {
    auto cmp = three_runs_a_side();
    cmp.gate = report::gate_view(cmp.report, 5);
    ASSERT_EQ(cmp.gate->outcome, suite::GateOutcome::Regression);
    auto out = report::ktap_exporter()->render(cmp);
    check_ktap(out);
    EXPECT_NE(out.find("  # cpuid b.json (regression): cpuid (b.json vs first): +"), std::string::npos) << out;
    EXPECT_NE(out.find("slowdown beyond 5%: Holm p"), std::string::npos) << out;
    EXPECT_NE(out.find("  not ok 2 b.json\nnot ok 2 cpuid\n"), std::string::npos) << out;
    EXPECT_NE(out.find("# --fail-if-slower 5: "), std::string::npos) << out;
    auto xml = report::junit_exporter()->render(cmp);
    EXPECT_NE(xml.find("<failure message=\"cpuid (b.json vs first): +"), std::string::npos) << xml;
    EXPECT_NE(xml.find("type=\"regression\">"), std::string::npos) << xml;
    // Within a 20% gate the same slowdown passes, its figures still said.
    cmp.gate = report::gate_view(cmp.report, 20);
    out = report::ktap_exporter()->render(cmp);
    EXPECT_NE(out.find("  ok 2 b.json\nok 2 cpuid\n"), std::string::npos) << out;
}

// One run a side and no calibration: the gate cannot test; each such test is a SKIP saying why.
TEST(Ktap, AGateThatCannotTestIsASkipWithWhy) {
    report::Comparison cmp{suite::compare_saved({"a.json", "b.json"}, {{scaled(1.0)}, {scaled(1.1)}}), {}};
    cmp.gate = report::gate_view(cmp.report, 5);
    ASSERT_EQ(cmp.gate->outcome, suite::GateOutcome::NotTestable);
    auto out = report::ktap_exporter()->render(cmp);
    check_ktap(out);
    EXPECT_NE(out.find("  ok 2 b.json # SKIP cpuid (b.json vs first) is not testable: "), std::string::npos) << out;
    EXPECT_NE(out.find("\nok 2 cpuid # SKIP not testable against --fail-if-slower\n"), std::string::npos) << out;
}

// prove (Perl's TAP::Harness) is a real TAP consumer: the KTAP must pass it.
TEST(Ktap, ProveAcceptsRunAndCompare) {
    if (!have("prove")) GTEST_SKIP() << "prove (Debian package perl) is not installed";
    test::TempDir tmp;
    auto passing = sample_report();
    passing.results.pop_back();  // without the hung test
    struct Case { std::string doc; bool pass; const char* result; } cases[] = {
        {report::ktap_exporter()->render(passing), true, "Result: PASS"},
        {report::ktap_exporter()->render(sample_report()), false, "Result: FAIL"},
        {report::ktap_exporter()->render(three_runs_a_side()), false, "Result: FAIL"},
        {report::ktap_skip_all("no /dev/kvm"), true, "skipped: no /dev/kvm"},  // then "Result: NOTESTS"
    };
    for (size_t i = 0; i < std::size(cases); ++i) {
        std::string in = tmp.path("k" + std::to_string(i) + ".tap"), log = tmp.path("log");
        std::ofstream(in) << cases[i].doc;
        int rc = std::system(("prove --exec cat " + in + " > " + log + " 2>&1").c_str());
        std::ifstream f(log);
        std::string said((std::istreambuf_iterator<char>(f)), {});
        EXPECT_EQ(rc == 0, cases[i].pass) << said << cases[i].doc;
        EXPECT_NE(said.find(cases[i].result), std::string::npos) << said;
        EXPECT_EQ(said.find("Parse errors"), std::string::npos) << said;
    }
}

TEST(Junit, EscapesMarkupAndReplacesWhatXmlForbids) {
    EXPECT_EQ(report::xml_escape("<a href=\"x\">&'", false), "&lt;a href=\"x\"&gt;&amp;'");
    EXPECT_EQ(report::xml_escape("<\"'>", true), "&lt;&quot;&apos;&gt;");
    EXPECT_EQ(report::xml_escape("a\tb\nc\rd", true), "a&#9;b&#10;c&#13;d");
    EXPECT_EQ(report::xml_escape("a\tb\nc", false), "a\tb\nc");
    const std::string fffd = "\xEF\xBF\xBD";
    EXPECT_EQ(report::xml_escape(std::string("x\0y\x1b", 4), false), "x" + fffd + "y" + fffd);
    EXPECT_EQ(report::xml_escape("caf\xC3\xA9 \xF0\x9F\x98\x80", false), "caf\xC3\xA9 \xF0\x9F\x98\x80");
    EXPECT_EQ(report::xml_escape("\xFF", false), fffd);                   // not UTF-8
    EXPECT_EQ(report::xml_escape("\xC0\xAF", false), fffd + fffd);        // overlong '/'
    EXPECT_EQ(report::xml_escape("\xED\xA0\x80", false), fffd + fffd + fffd);  // a surrogate
    EXPECT_EQ(report::xml_escape("\xEF\xBF\xBE", false), fffd);           // U+FFFE is not an XML character
    EXPECT_EQ(report::xml_escape("\xE2\x82", false), fffd + fffd);        // cut short
}

TEST(Junit, RunCountsFailuresAndSkipsWithTheirReasons) {
    auto out = report::junit_exporter()->render(sample_report());
    EXPECT_EQ(out.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"exitbench run\" tests=\"4\" "
                        "failures=\"1\" errors=\"0\" time=", 0), 0u) << out;
    EXPECT_NE(out.find("<testsuite name=\"exitbench run\" tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"1\""),
              std::string::npos) << out;
    EXPECT_NE(out.find("<testcase name=\"ipi\" classname=\"exitbench.run\" time=\"0.000\">"), std::string::npos) << out;
    EXPECT_NE(out.find("<skipped message=\"needs 2 vCPUs\" type=\"skipped\">needs 2 vCPUs\nstatus=skipped"),
              std::string::npos) << out;
    EXPECT_NE(out.find("<failure message=\"rip=0x1\" type=\"hung\">rip=0x1\nstatus=hung exit_kind=kernel"),
              std::string::npos) << out;
    // The figures where GitLab and Jenkins show them: no properties on a testcase.
    EXPECT_NE(out.find("<system-out>status=ok cycles_per_iter=1234.7 "), std::string::npos) << out;
    EXPECT_EQ(out.find("<property"), std::string::npos) << out;
}

// The project's schema and Jenkins xUnit's junit-10.xsd (the one its plugin
// validates with) take every file; both reject a testcase without a name.
TEST(Junit, XmllintValidatesEveryFileAgainstTheShippedSchema) {
    if (!have("xmllint")) GTEST_SKIP() << "xmllint (Debian package libxml2-utils) is not installed";
    test::TempDir tmp;
    auto hostile = sample_report();
    hostile.results[1].name = "<evil>&\"quote\" ]]> \x01\x1b[31m \xFF\xFE end";
    hostile.results[3].detail = "</failure><testcase name=\"forged\"/>\r\n\x0c";
    hostile.provenance = {"2026-12-01T07:00:00Z", "host<&>", {}, "", "", {}};
    auto cmp = three_runs_a_side("b\x02<&>\".json");
    cmp.report.tests[0].configs[0].status = "error";
    cmp.report.tests[0].configs[0].detail = "KVM_RUN: EFAULT";
    auto gated = three_runs_a_side();
    gated.gate = report::gate_view(gated.report, 5);
    std::string docs[] = {report::junit_exporter()->render(sample_report()), report::junit_exporter()->render(hostile),
                          report::junit_exporter()->render(cmp), report::junit_exporter()->render(gated),
                          "<testsuites><testsuite name=\"x\" tests=\"1\" failures=\"0\" errors=\"0\"><testcase "
                          "classname=\"c\"/></testsuite></testsuites>\n"};  // a testcase without a name
    for (const char* xsd : {"junit.xsd", "jenkins-xunit-junit-10.xsd"})
        for (size_t i = 0; i < std::size(docs); ++i) {
            std::string in = tmp.path("j" + std::to_string(i) + ".xml"), log = tmp.path("log");
            std::ofstream(in) << docs[i];
            int rc = std::system(("xmllint --noout --schema " + eb::test::source_dir() + "/tests/schema/" + xsd + " " +
                                  in + " > " + log + " 2>&1").c_str());
            std::ifstream f(log);
            std::string said((std::istreambuf_iterator<char>(f)), {});
            bool valid = i < 4;
            EXPECT_EQ(rc == 0, valid) << xsd << ": " << said << docs[i];
            if (valid) {
                EXPECT_NE(said.find(" validates"), std::string::npos) << said;
            }
        }
    EXPECT_NE(docs[1].find("<testcase name=\"&lt;evil&gt;&amp;&quot;quote&quot; ]]&gt; \xEF\xBF\xBD\xEF\xBF\xBD[31m"),
              std::string::npos) << docs[1];
    EXPECT_NE(docs[1].find("timestamp=\"2026-12-01T07:00:00\" hostname=\"host&lt;&amp;&gt;\""), std::string::npos);
    EXPECT_NE(docs[2].find("<error message=\"KVM_RUN: EFAULT\" type=\"error\">"), std::string::npos) << docs[2];
}

// The fleet's PromQL joins the run's facts: microcode is on exitbench_run_info.
TEST(OpenMetrics, RunInfoCarriesTheMicrocode) {
    auto r = sample_report();
    r.env = {{"cpu.microcode", "0xa0011d5"}};
    auto out = report::openmetrics_exporter()->render(r);
    EXPECT_NE(out.find("microcode=\"0xa0011d5\"} 1\n"), std::string::npos) << out;
}
