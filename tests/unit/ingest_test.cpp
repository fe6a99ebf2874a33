// The importers without the command line or the history: each file kind read
// into the layers' types, and each kind of bad file one InputError.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "ingest/calibration.h"
#include "ingest/input.h"
#include "ingest/kut.h"
#include "ingest/perf_data.h"
#include "ingest/perf_kvm.h"
#include "ingest/profile_input.h"
#include "sys/error.h"
#include "sys/process.h"
#include "tests/paths.h"

namespace eb::ingest {
namespace {

namespace fs = std::filesystem;

std::string fixture(const std::string& rel) { return test::fixtures_dir() + "/" + rel; }

struct Scratch {
    sys::ScratchDir dir{"exitbench-ingest-test"};
    std::string write(const std::string& name, const std::string& text) {
        std::ofstream(dir.file(name), std::ios::binary) << text;
        return dir.file(name);
    }
};

TEST(Ingest, KutLinesMakeOneRunWithTheirProvenance) {
    std::string notes;
    auto runs = kut_imports({fixture("kut/vmexit-lines.txt")}, KutGrouping::Auto, notes);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].name, fixture("kut/vmexit-lines.txt"));
    ASSERT_TRUE(runs[0].run.provenance.imported.has_value());
    EXPECT_EQ(runs[0].run.provenance.imported->sha256.size(), 64u);
    EXPECT_FALSE(runs[0].run.results.empty());
    EXPECT_TRUE(runs[0].run.provenance.hostname.empty()) << "the importing host is not the measuring one";
}

TEST(Ingest, KutRunTestsLogsOfOneDirectoryAreOneRun) {
    std::string notes;
    auto logs = {fixture("kut/vmexit_cpuid.log"), fixture("kut/vmexit_ipi.log")};
    EXPECT_EQ(kut_imports(logs, KutGrouping::Auto, notes).size(), 1u);
    EXPECT_EQ(kut_imports(logs, KutGrouping::PerFile, notes).size(), 2u);
}

TEST(Ingest, BadFilesAreOneInputErrorNamingTheFile) {
    Scratch s;
    std::string notes;
    auto junk = s.write("junk.txt", "this is not vmexit.flat output\n");
    EXPECT_THROW(kut_imports({junk}, KutGrouping::Auto, notes), InputError);
    EXPECT_THROW(kut_imports({s.dir.file("absent")}, KutGrouping::Auto, notes), InputError);
    EXPECT_THROW(read_input_file(s.dir.path(), 1 << 20, "log"), InputError) << "a directory";
    auto big = s.write("big", std::string(2048, 'x'));
    try {
        read_input_file(big, 1024, "vmexit.flat log");
        FAIL() << "a file over the bound was read";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(big), std::string::npos) << e.what();
    }
}

TEST(Ingest, PerfKvmTablesAreRead) {
    std::string text;
    auto tables = read_perf_tables(fixture("perf/report-vmexit.txt"), text);
    ASSERT_EQ(tables.size(), 1u);
    EXPECT_FALSE(tables[0].rows.empty());
    EXPECT_FALSE(text.empty());
    Scratch s;
    EXPECT_THROW(read_perf_tables(s.write("t", "Analyze events for all VMs, all VCPUs:\n"), text), InputError);
}

TEST(Ingest, AProfileSideIsATraceOrPerfText) {
    profile::Options opt;
    EXPECT_FALSE(read_profile(fixture("perf/report-vmexit.txt"), opt).rows.empty());
    EXPECT_FALSE(read_profile(fixture("profile/nested-svm-cpuid-msr-io.trace"), opt).rows.empty());
    opt.vcpu = 0;
    EXPECT_THROW(read_profile(fixture("perf/report-vmexit.txt"), opt), InputError) << "perf's table has no vCPU";
    opt = {};
    opt.mode = profile::Mode::Mmio;
    EXPECT_THROW(read_profile(fixture("perf/report-vmexit.txt"), opt), InputError) << "no MMIO table in it";
    EXPECT_THROW(read_profile("/dev/null", {}), InputError) << "a device";
}

TEST(Ingest, AKeptCalibrationIsCheckedRowByRow) {
    Scratch s;
    EXPECT_THROW(read_kept_calibration(s.write("a.json", "{\"schema\": \"other/1\"}")), InputError);
    EXPECT_THROW(read_kept_calibration(s.write("b.json", "not json")), InputError);
    EXPECT_THROW(read_kept_calibration(s.write("c.json", "{\"schema\": \"exitbench-calibration/1\"}")), InputError)
        << "no calibration in it";
}

TEST(Ingest, APerfDataIsCheckedBeforePerfRuns) {
    Scratch s;
    EXPECT_THROW(check_perf_data(s.write("x.data", "PERFILE1 and more")), InputError) << "wrong magic";
    EXPECT_THROW(check_perf_data(s.dir.file("absent")), InputError);
    EXPECT_THROW(import_perf_data(s.write("y.data", "not perf"), s.dir.file("out.trace")), InputError);
    EXPECT_FALSE(fs::exists(s.dir.file("out.trace"))) << "a refused input makes no output";
}

} // namespace
} // namespace eb::ingest
