// lab's saved-run use cases, called as a library: history references, the
// save that keeps a refused result in a file, and compare's saved mode.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>

#include "lab/compare_saved.h"
#include "lab/saved_runs.h"
#include "lab/suggest.h"
#include "result/json.h"
#include "sys/file.h"
#include "tests/temp_dir.h"

using namespace eb;

namespace {

// One run of `tests`, each with three sessions of four repeats near `cost`.
suite::RunReport saved_run(std::initializer_list<const char*> tests, double cost, const std::string& boot = "b1") {
    suite::RunReport r;
    r.host.tsc_mhz = 1000;
    r.provenance.timestamp_utc = "2026-12-04T18:00:00Z";
    r.provenance.boot_id = boot;
    r.settings.sessions = 3;
    r.settings.repeats = 4;
    for (const char* t : tests) {
        suite::TestResult res{.name = t, .status = suite::Status::Ok};
        for (int s = 0; s < 3; ++s) res.sessions.push_back({{cost + s, cost + s + 1, cost + s, cost + s + 2}, 1000});
        r.results.push_back(res);
    }
    return r;
}

std::string write_run(const test::TempDir& tmp, const std::string& name, const suite::RunReport& r) {
    auto path = tmp.path(name);
    sys::write_file(path, result::to_json(r).dump());
    return path;
}

// TMPDIR pointed at a directory of the test's own while it lives.
struct ScopedTmpdir {
    std::string old;
    bool had;
    explicit ScopedTmpdir(const std::string& dir) : had(std::getenv("TMPDIR")) {
        if (had) old = std::getenv("TMPDIR");
        ::setenv("TMPDIR", dir.c_str(), 1);
    }
    ~ScopedTmpdir() { had ? (void)::setenv("TMPDIR", old.c_str(), 1) : (void)::unsetenv("TMPDIR"); }
};

} // namespace

TEST(Suggest, FindsTyposOnly) {
    std::vector<std::string> names{"cpuid", "vmcall", "inl_from_qemu", "mov_to_cr8"};
    EXPECT_EQ(lab::suggest("cpudi", names), "cpuid");
    EXPECT_EQ(lab::suggest("inl_from_qem", names), "inl_from_qemu");
    EXPECT_EQ(lab::suggest("completely_different", names), std::nullopt);
}

TEST(LabSavedRuns, ALabelNamesItsRunsAndAnUnknownOneIsBadInputWithASuggestion) {
    test::TempDir tmp;
    auto db = tmp.path("h.db");
    EXPECT_EQ(lab::save_run(db, saved_run({"cpuid"}, 100), "nightly", ""), 1);
    EXPECT_EQ(lab::save_run(db, saved_run({"cpuid"}, 101), "nightly", ""), 2);
    EXPECT_EQ(lab::expand_ref(db, "label:nightly"), (std::vector<std::string>{"run:1", "run:2"}));
    EXPECT_EQ(lab::load_result("run:2", db).results.at(0).sessions.at(0).samples.at(0), 101);
    try {
        lab::expand_ref(db, "label:nightyl");
        FAIL() << "an unknown label expanded";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("did you mean label:nightly?"), std::string::npos) << e.what();
    }
    EXPECT_THROW(lab::load_result("run:9", db), InputError);
    EXPECT_EQ(lab::against_last(db), (std::vector<std::vector<std::string>>{{"run:1"}, {"run:2"}}));
}

// The store cannot be made (its directory is a file): the run is kept in
// TMPDIR, and the save says it was not saved.
TEST(LabSavedRuns, ARefusedSaveKeepsTheResultInAFile) {
    test::TempDir tmp;
    sys::write_file(tmp.path("not-a-dir"), "x");
    ScopedTmpdir scoped(tmp.dir().string());
    EXPECT_EQ(lab::save_run(tmp.path("not-a-dir/h.db"), saved_run({"cpuid"}, 100), "l", ""), std::nullopt);
    size_t kept = 0;
    for (const auto& e : std::filesystem::directory_iterator(tmp.dir()))
        if (e.path().filename().string().starts_with("h.db.unsaved-")) {
            ++kept;
            EXPECT_EQ(lab::load_result(e.path().string(), "").results.at(0).name, "cpuid");
        }
    EXPECT_EQ(kept, 1u);
}

TEST(LabCompareSaved, TwoFilesAreComparedTestByTest) {
    test::TempDir tmp;
    auto a = write_run(tmp, "a.json", saved_run({"cpuid", "vmcall"}, 100));
    auto b = write_run(tmp, "b.json", saved_run({"cpuid"}, 120));
    std::vector<std::string> header;
    auto cmp = lab::compare_saved({{a}, {b}}, tmp.path("h.db"), 0.05, header);
    ASSERT_FALSE(cmp.tests.empty());
    EXPECT_EQ(cmp.tests[0].test, "cpuid");
    ASSERT_EQ(cmp.tests[0].vs_first.size(), 1u) << "B against A";
    EXPECT_EQ(cmp.labels, (std::vector<std::string>{a, b})) << "a side of one file is named by it";
    ASSERT_FALSE(header.empty());
    EXPECT_EQ(header[0], "saved results: 1 vs 1 file(s)");
}

TEST(LabCompareSaved, TheSameInputTwiceOrNoSharedTestIsBadInput) {
    test::TempDir tmp;
    auto a = write_run(tmp, "a.json", saved_run({"cpuid"}, 100));
    auto copy = write_run(tmp, "copy.json", saved_run({"cpuid"}, 100));
    auto other = write_run(tmp, "other.json", saved_run({"vmcall"}, 100, "b2"));
    std::vector<std::string> header;
    EXPECT_THROW(lab::compare_saved({{a}, {a}}, "", 0.05, header), InputError);
    EXPECT_THROW(lab::compare_saved({{a}, {copy}}, "", 0.05, header), InputError) << "same content";
    EXPECT_THROW(lab::compare_saved({{a}, {other}}, "", 0.05, header), InputError);
}
