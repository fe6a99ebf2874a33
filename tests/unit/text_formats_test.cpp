// The text formats for people and for vmexit.flat's readers: kut lines and the table.
#include <gtest/gtest.h>

#include "report/exporter.h"
#include "sample_report.h"

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
