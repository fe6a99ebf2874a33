// perf kvm stat report text read back: the real tables in tests/fixtures/perf/
// (made under the nested kvm_amd, see its README) and hostile inputs.
#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "report/profile_text.h"
#include "profile/perf_text.h"
#include "fixture.h"

using namespace eb::profile;
using eb::report::render_extended;
using eb::report::render_perf;
using eb::report::render_profile_compare;

namespace {

std::string text_error_of(std::string_view text) {
    try {
        parse_perf_text(text, "t");
    } catch (const PerfTextError& e) {
        return e.what();
    }
    return "";
}

const Row* row_named(const Report& r, std::string_view name) {
    for (const Row& row : r.rows)
        if (row.name == name) return &row;
    return nullptr;
}

const std::string kTitle = "             VM-EXIT    Samples  Samples%     Time%    Min Time    Max Time         Avg time \n\n";

} // namespace

TEST(PerfText, RealVmexitTableFromNestedSvm) {
    auto text = perf_fixture("report-vmexit.txt");
    ASSERT_FALSE(text.empty()) << "fixture missing";
    auto tables = parse_perf_text(text, "report-vmexit.txt");
    ASSERT_EQ(tables.size(), 1u);
    const Report& r = tables[0];
    EXPECT_EQ(r.mode, Mode::VmExit);
    EXPECT_EQ(r.isa, "svm");
    EXPECT_FALSE(r.imported.empty());
    const Row* cpuid = row_named(r, "cpuid");
    ASSERT_NE(cpuid, nullptr);
    EXPECT_EQ(cpuid->key, 0x72u);  // SVM_EXIT_CPUID
    EXPECT_GE(cpuid->count, 600u);  // 200 x 3 repeats at least
    EXPECT_LE(cpuid->min_ns, uint64_t(cpuid->mean_ns + 10));
    EXPECT_LE(cpuid->mean_ns, double(cpuid->max_ns) + 10);
    uint64_t sum = 0;
    for (const Row& row : r.rows) sum += row.count;
    EXPECT_EQ(sum, r.total_samples);
    // render_perf gives perf's own rows back, figures and ( +- % ) included.
    std::string again = render_perf(r);
    for (const Row& row : r.rows) {
        auto line_at = text.find(" " + row.name + " ");
        ASSERT_NE(line_at, std::string::npos) << row.name;
        auto line = text.substr(text.rfind('\n', line_at) + 1, text.find('\n', line_at) - text.rfind('\n', line_at) - 1);
        EXPECT_NE(again.find(line), std::string::npos) << "row not reproduced: " << line;
    }
}

TEST(PerfText, RealIoportAndMsrTables) {
    auto io = parse_perf_text(perf_fixture("report-ioport.txt"), "io");
    ASSERT_EQ(io.size(), 1u);
    EXPECT_EQ(io[0].mode, Mode::Ioport);
    bool in = false;
    for (const Row& row : io[0].rows) in |= row.type == EventType::Pio && row.info == 0;
    EXPECT_TRUE(in) << "inl tests read a port: a PIN row";
    auto msr = parse_perf_text(perf_fixture("report-msr.txt"), "msr");
    ASSERT_EQ(msr.size(), 1u);
    EXPECT_EQ(msr[0].mode, Mode::Msr);
    EXPECT_FALSE(msr[0].rows.empty());
    for (const Row& row : msr[0].rows) EXPECT_EQ(row.type, EventType::Msr);
}

TEST(PerfText, SeveralTablesInOnePasteWithTextAround) {
    std::string paste = "From: someone\nHere are my numbers:\n\n" + perf_fixture("report-vmexit.txt") +
                        "\nand the port I/O:\n" + perf_fixture("report-ioport.txt") + "\nThanks\n";
    auto t = parse_perf_text(paste, "paste");
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[0].mode, Mode::VmExit);
    EXPECT_EQ(t[1].mode, Mode::Ioport);
}

TEST(PerfText, VmxNamesAndRelativeErrorRoundTrip) {
    std::string t = kTitle +
                    "            MSR_READ       1000    80.00%    50.00%      0.50us     10.00us      1.00us ( +-   2.00% )\n"
                    "               CPUID        250    20.00%    50.00%      3.00us      5.00us      4.00us ( +-100.00% )\n"
                    "\nTotal Samples:1250, Total events handled time:2000.00us.\n";
    auto r = parse_perf_text(t, "t");
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].isa, "vmx");
    EXPECT_EQ(r[0].rows[0].key, 31u);  // EXIT_REASON_MSR_READ
    EXPECT_EQ(r[0].rows[1].key, 10u);  // EXIT_REASON_CPUID
    EXPECT_NEAR(r[0].rows[0].rel_sem_pct(), 2.0, 1e-9);
    EXPECT_NEAR(r[0].rows[1].rel_sem_pct(), 100.0, 1e-9);
    EXPECT_EQ(r[0].total_samples, 1250u);
}

TEST(PerfText, HostileInputsGetOneLineErrors) {
    std::string row = "                 msr         10    100.00%   100.00%      1.00us      2.00us      1.50us ( +-   1.00% )\n";
    const std::pair<std::string, std::string> cases[] = {
        {"", "empty"},
        {std::string("VM-EXIT\0\x01\x02", 10), "binary"},
        {"hello\nworld\n", "no perf kvm stat table"},
        {kTitle + "\n", "no rows"},
        {kTitle + "  msr 99999999999999999999 100.00% 100.00% 1.00us 2.00us 1.50us ( +- 1.00% )\n", "sample count"},
        {kTitle + "  msr 10 100.00% 100.00% 1.00us 1e300us 1.50us ( +- 1.00% )\n", "not a figure"},
        {kTitle + "  msr 10 100.00% 100.00% 1.00us nanus 1.50us ( +- 1.00% )\n", "not a figure"},
        {kTitle + "  msr 10 100.00% 100.00% 9.00us 2.00us 1.50us ( +- 1.00% )\n", "min 9.00us"},
        {kTitle + "  msr 10 100.00% 100.00% 1.00us 2.00us\n", "not a perf kvm stat row"},
        {kTitle + "  msr 10 100.00% 100.00% 1.00us 2.00us 1.50us ( 1.00% )\n", "+-"},
        {kTitle + "  msr 10 250.00% 100.00% 1.00us 2.00us 1.50us ( +- 1.00% )\n", "0 to 100"},
        {kTitle + "  MSR_READ 10 100.00% 100.00% 1.00us 2.00us 1.50us ( +- 1.00% )\n" + row, "neither all SVM"},
        {kTitle + "  bogus_reason 10 100.00% 100.00% 1.00us 2.00us 1.50us ( +- 1.00% )\n", "neither all SVM"},
        {kTitle + row + "\nTotal Samples:11, Total events handled time:15.00us.\n", "footer says 11"},
        {"      IO Port Access    Samples  Samples%     Time%    Min Time    Max Time         Avg time \n" + row,
         "not a key perf prints"},
        {kTitle + "  m\x1b[2Jsr 10 100.00% 100.00% 1.00us 2.00us 1.50us ( +- 1.00% )\n", "printable"},
    };
    for (const auto& [text, want] : cases) {
        auto e = text_error_of(text);
        EXPECT_NE(e.find(want), std::string::npos) << "input: " << text.substr(0, 120) << "\nerror: " << e;
        EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    }
    // Issue 24: sums that wrapped, a product llround could not hold, and a key twice.
    std::ostringstream io;
    io << "      IO Port Access    Samples  Samples%     Time%    Min Time    Max Time         Avg time \n\n";
    for (int i = 0; i < 2048; ++i)
        io << "  0x" << std::hex << i << ":POUT 9007199254740992 0.05% 0.05% 0.00us 0.01us 0.00us ( +- 0.00% )\n";
    io << "\nTotal Samples:0, Total events handled time:0.00us.\n";
    EXPECT_NE(text_error_of(io.str()).find("rows add up past 2^64"), std::string::npos) << text_error_of(io.str());
    EXPECT_NE(text_error_of(kTitle + "  msr 9007199254740992 100.00% 100.00% 1.00us 2.00us 1.50us ( +- 1.00% )\n")
                  .find("add up past 2^63 ns"), std::string::npos);
    EXPECT_NE(text_error_of(kTitle + row + row).find("two rows for 'msr'"), std::string::npos) << text_error_of(kTitle + row + row);
    std::string big(kPerfTextMaxBytes + 1, ' ');
    EXPECT_NE(text_error_of(big).find("too big"), std::string::npos);
}

TEST(PerfText, RealEmptyMmioTableIsAnEmptyReport) {
    auto t = parse_perf_text(perf_fixture("report-mmio.txt"), "mmio");
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].mode, Mode::Mmio);
    EXPECT_TRUE(t[0].rows.empty());
    EXPECT_EQ(t[0].total_samples, 0u);
}

// The first half of a real table (no footer, two of its five rows) is an
// excerpt: read, and said to be one with perf's own share of its rows, so
// its recomputed shares are not taken for the table's. Over 100% no perf printed.
TEST(PerfText, ACutTableWithoutItsFooterIsAnExcerptAndSaysSo) {
    auto text = perf_fixture("report-vmexit.txt");
    auto cut = text.substr(0, text.find("   cpuid "));
    auto t = parse_perf_text(cut, "t");
    ASSERT_EQ(t.size(), 1u);
    EXPECT_NE(t[0].imported.find("an excerpt: its 2 row(s) hold 72.94% of perf's samples"), std::string::npos)
        << t[0].imported;
    // The whole table without its footer (a paste that left it out) is whole: 99.99% is rounding.
    auto whole = text.substr(0, text.find("Total Samples"));
    ASSERT_EQ(text_error_of(whole), "");
    EXPECT_EQ(parse_perf_text(whole, "t")[0].rows.size(), 5u);
    EXPECT_EQ(parse_perf_text(whole, "t")[0].imported.find("excerpt"), std::string::npos);
    auto over = kTitle + "  msr  10  80.00%  50.00%  1.00us  2.00us  1.50us ( +- 1.00% )\n"
                         "  npf  10  80.00%  50.00%  1.00us  2.00us  1.50us ( +- 1.00% )\n";
    EXPECT_NE(text_error_of(over).find("over 100%"), std::string::npos) << text_error_of(over);
}

// The excerpts of the x2APIC fastpath thread (seed 001), as the list carries
// them: quoted "> > ", a row without its ( +- E% ), and a row the mail client
// wrapped before its average.
TEST(PerfText, TheListsOneRowExcerptsAreRead) {
    const std::string quoted = "> > Before patch:\n> >\n"
                               "> >   VM-EXIT    Samples  Samples%     Time%    Min Time    Max Time   Avg time\n"
                               "> > MSR_WRITE    5417390    90.01%    16.31%      0.69us    159.60us    1.08us\n"
                               "> >\n> > After patch:\n";
    auto q = parse_perf_text(quoted, "mail");
    ASSERT_EQ(q.size(), 1u);
    ASSERT_EQ(q[0].rows.size(), 1u);
    EXPECT_EQ(q[0].isa, "vmx");
    EXPECT_EQ(q[0].rows[0].count, 5417390u);
    EXPECT_NEAR(q[0].rows[0].mean_ns, 1080, 1e-6);
    EXPECT_TRUE(std::isnan(q[0].rows[0].rel_sem_pct()));  // unknown, not 0
    EXPECT_NE(q[0].imported.find("90.01% of perf's samples and 16.31% of its time"), std::string::npos) << q[0].imported;
    EXPECT_NE(q[0].imported.find("no spread"), std::string::npos) << q[0].imported;
    EXPECT_EQ(render_perf(q[0]).find("nan"), std::string::npos) << render_perf(q[0]);
    const std::string wrapped = "    VM-EXIT    Samples  Samples%     Time%    Min Time    Max Time   Avg time\n"
                                "MSR_WRITE    2681713    92.98%    77.52%      0.38us     18.54us\n"
                                "0.73us ( +-   0.02% )\n\nAfter patch:\n";
    auto w = parse_perf_text(wrapped, "mail");
    ASSERT_EQ(w.size(), 1u);
    ASSERT_EQ(w[0].rows.size(), 1u);
    EXPECT_EQ(w[0].rows[0].count, 2681713u);
    EXPECT_NEAR(w[0].rows[0].mean_ns, 730, 1e-6);
    EXPECT_NEAR(w[0].rows[0].rel_sem_pct(), 0.02, 1e-9);
    // Prose right after a table ends it, even when it ends in "us".
    auto prose = parse_perf_text(kTitle + "  msr  10  80.00%  50.00%  1.00us  2.00us  1.50us ( +- 1.00% )\n"
                                          "and then we saw a clear win, thus\n", "mail");
    EXPECT_EQ(prose[0].rows.size(), 1u);
    // A short line that is no row is still refused, by its line.
    EXPECT_NE(text_error_of(kTitle + "MSR_WRITE 2681713 92.98% 77.52% 0.38us 18.54us\nsomething else\n").find("line 3"),
              std::string::npos);
}
