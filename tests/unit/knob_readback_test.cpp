// A knob the guest did not read back makes its configuration not testable in
// compare (saved or live rounds) and in its JSON; a recipe whose
// preconditions fail answers "not answerable" instead of a verdict.
#include <gtest/gtest.h>

#include "report/compare.h"
#include "suite/compare.h"

namespace {

using namespace eb::suite;

RunReport run_of(double median, std::vector<std::string> warnings = {}) {
    TestResult t{.name = "tscdeadline_immed", .status = Status::Ok};
    for (double m : {median, median * 1.01, median * 0.99}) t.sessions.push_back({{m * 0.999, m, m * 1.001}, 64});
    t.warnings = std::move(warnings);
    RunReport r;
    r.results.push_back(t);
    return r;
}

const std::string kReadBack = std::string(kKnobNotApplied) + "guest MSR spec_ctrl (0x48): wrote 0x401, reads back 0x0";

} // namespace

TEST(KnobReadBack, MakesTheConfigurationNotTestable) {
    std::vector<std::vector<RunReport>> rounds(2);
    for (int r = 0; r < 4; ++r) {
        rounds[0].push_back(run_of(1000 + r));
        rounds[1].push_back(run_of(1500 + r, {kReadBack}));
    }
    auto c = compare_rounds({"guest 1", "guest 1025"}, rounds);
    const auto& e = c.tests[0].vs_first[0];
    EXPECT_EQ(e.verdict, Verdict::NotTestable);
    EXPECT_NE(e.why.find("under 'guest 1025' configuration not testable: guest MSR spec_ctrl"), std::string::npos)
        << e.why;
    EXPECT_EQ(c.family, 0u);
    ASSERT_EQ(knob_warnings(c).size(), 1u);
    EXPECT_EQ(knob_warnings(c)[0], "'guest 1025': " + kReadBack);
    auto j = eb::report::comparison_json(c);
    EXPECT_EQ(j["warnings"].size(), 1u) << j["warnings"];
    EXPECT_EQ(j["tests"][0]["vs_first"][0]["verdict"], "not testable");
    // Saved runs alike.
    auto s = compare_saved({"a", "b"}, {{run_of(1000), run_of(1001)}, {run_of(1500, {kReadBack}), run_of(1501)}});
    EXPECT_EQ(s.tests[0].vs_first[0].verdict, Verdict::NotTestable);
}

TEST(KnobReadBack, UnmetPreconditionsAnswerNothing) {
    std::vector<std::vector<RunReport>> rounds(2);
    for (int r = 0; r < 4; ++r) {
        rounds[0].push_back(run_of(1000 + r));
        rounds[1].push_back(run_of(2000 + 3 * r));
    }
    auto c = compare_rounds({"A", "B"}, rounds);
    ASSERT_NE(c.tests[0].vs_first[0].verdict, Verdict::NotTestable);  // a verdict, until...
    mark_not_answerable(c, {"needs VMX (kvm_intel); /dev/kvm is kvm_pvm"});
    EXPECT_EQ(c.tests[0].vs_first[0].verdict, Verdict::NotTestable);
    EXPECT_EQ(c.tests[0].vs_first[0].why, "not answerable on this host: needs VMX (kvm_intel); /dev/kvm is kvm_pvm");
    EXPECT_EQ(c.family, 0u);
    auto text = eb::report::render_comparison(c);
    EXPECT_NE(text.find("not answerable on this host: needs VMX"), std::string::npos) << text;
    EXPECT_EQ(eb::report::comparison_json(c)["not_answerable"].size(), 1u);
    mark_not_answerable(c, {});  // nothing unmet: nothing changes
    EXPECT_EQ(c.not_answerable.size(), 1u);
}
