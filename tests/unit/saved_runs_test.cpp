// lab's saved-run use cases, called as a library: history references and
// the save that keeps a refused result in a file.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>

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
