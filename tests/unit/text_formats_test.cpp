// The text formats for people and for vmexit.flat's readers: kut lines and the table.
#include <gtest/gtest.h>

#include <iostream>

#include "report/exporter.h"
#include "report/histogram_text.h"
#include "sample_report.h"
#include "stats/inference.h"

using namespace eb;

TEST(KutFormat, PrintsNameAndTruncatedCyclesLikeVmexitFlat) {
    auto out = report::kut_exporter()->render(sample_report());
    EXPECT_EQ(out, "baseline 100\ncpuid 1234\nipi (skipped)\n");
}

TEST(TableFormat, ShowsEveryTestStatusAndNotes) {
    auto out = report::table_exporter()->render(sample_report());
    for (const char* s : {"baseline", "cpuid", "ipi", "vmcall", "hung", "skipped", "1.00 (1)",
                          "needs 2 vCPUs", "kvm_amd", "1135"})
        EXPECT_NE(out.find(s), std::string::npos) << s << "\n" << out;
}

TEST(Exporters, UnknownFormatIsNull) {
    EXPECT_EQ(report::make_exporter("xml"), nullptr);
    for (const auto& f : report::format_names()) EXPECT_NE(report::make_exporter(f), nullptr);
}

// After the results: the run's wall time by phase, the sessions that reused a
// calibrated batch size, the hung tests left out; nothing for a run without
// an account (an older file).
TEST(TableFormat, EndsWithTheWallTimeAccount) {
    auto rep = sample_report();
    EXPECT_EQ(report::table_exporter()->render(rep).find("wall time"), std::string::npos);
    rep.settings.sessions = 2;
    rep.settings.iterations.reset();  // adaptive: there is a calibrated size to reuse
    rep.wall_time = suite::WallSplit{.measured = 2'000'000'000, .warmup = 1'000'000'000, .vm_start = 500'000'000,
                                     .teardown = 100'000'000, .watchdog = 0, .trace_verify = 300'000'000,
                                     .setup = 0, .other = 100'000'000, .total = 4'000'000'000};
    for (auto& t : rep.results)
        if (t.name == "cpuid") t.sessions = {{{5}, 64, false}, {{5}, 64, true}};
    for (auto& t : rep.results)
        if (t.status == suite::Status::Hung) t.hung_in_session = 1, t.sessions_not_rerun = 1;
    auto out = report::table_exporter()->render(rep);
    auto at = out.find("wall time 4.00 s: measured batches 2.00 s (50%), warm-up/calibration 1.00 s (25%)");
    ASSERT_NE(at, std::string::npos) << out;
    EXPECT_GT(at, out.find(" tests: ")) << "the account follows the results";
    for (const char* s : {"VM start 0.50 s (12%)", "trace verification 0.30 s (8%)", "watchdog waits 0.00 s (0%)",
                          "other 0.10 s (2%)", "reused in 1 of 1 later test sessions", "calibrated again in 0",
                          "not rerun after a hang (--retry-hung reruns them): vmcall (hung in session 1, 1 later skipped)"})
        EXPECT_NE(out.find(s), std::string::npos) << s << "\n" << out;
}

TEST(HistogramText, RendersEachBinWithEdgesThatStayApart) {
    std::vector<double> spread{1, 20, 300, 1000};
    auto text = report::render_histogram(stats::histogram(spread, 3, true), 10);
    std::cout << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
    EXPECT_NE(text.find("##########\n"), std::string::npos);  // the fullest bin spans the width
    EXPECT_NE(text.find("[100, 1000]"), std::string::npos);
    // Narrow ranges get enough digits to keep the edges apart.
    std::vector<double> narrow{1000.1, 1000.2, 1000.3, 1000.4};
    auto n = report::render_histogram(stats::histogram(narrow, 3, false), 5);
    EXPECT_EQ(n.find("[1000, 1000)"), std::string::npos) << n;
    std::vector<double> flat{5, 5};
    EXPECT_EQ(report::render_histogram(stats::histogram(flat, 4, false), 3), "[5, 5] 2 ###\n");
}
