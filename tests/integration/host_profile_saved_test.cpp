// Saved host profiles (issue 54), with no /dev/kvm: two real runs of cpuid
// with --host-profile, recorded in the emulated kvm_amd that `exitbench
// boot` starts (tests/fixtures/results/README.md), side A with the SRSO
// mitigation on, side B booted with mitigations=off. The history keeps the
// profile, `history show` prints it, `profile compare` of the saved runs
// names srso_return_thunk as sampled on A's side only, says one run a side is
// not testable, exports the comparison, and `history rm` takes it away.
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "tests/paths.h"
#include "tests/temp_dir.h"

namespace {

class HostProfileSaved : public eb::test::TempDirTest {
protected:
    std::string fixture(const char* name) const { return eb::test::fixtures_dir() + "/results/" + name; }
    // Imports both runs into a fresh store: srso-on as run 1, mitigations-off as run 2.
    std::string store() const {
        std::string db = temp_path("h.db");
        auto a = run_cli({"import", "run", fixture("host-profile-srso-on.json"), "--db", db, "--label", "srso-on"});
        EXPECT_EQ(a.rc, 0) << a.err;
        auto b = run_cli({"import", "run", fixture("host-profile-mitigations-off.json"), "--db", db, "--label", "off"});
        EXPECT_EQ(b.rc, 0) << b.err;
        return db;
    }
};

TEST_F(HostProfileSaved, HistoryShowPrintsTheSavedProfileAndRmRemovesIt) {
    auto db = store();
    auto show = run_cli({"history", "show", "1", "--db", db});
    ASSERT_EQ(show.rc, 0) << show.err;
    EXPECT_NE(show.out.find("host profile, saved with the run"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("srso_return_thunk"), std::string::npos) << show.out;
    auto rm = run_cli({"history", "rm", "1", "--db", db, "--yes"});
    ASSERT_EQ(rm.rc, 0) << rm.err;
    auto gone = run_cli({"profile", "compare", "run:1", "run:2", "--db", db});
    EXPECT_EQ(gone.rc, 2) << gone.out;
}

TEST_F(HostProfileSaved, CompareFromTheHistoryShowsTheOneSidedFunction) {
    auto db = store();
    std::string html = temp_path("d.html"), csv = temp_path("d.csv"), json = temp_path("d.json");
    auto r = run_cli({"profile", "compare", "label:srso-on", "label:off", "--db", db, "--export-html", html,
                      "--export-csv", csv, "--export-json", json});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("not testable: one run a side"), std::string::npos) << r.out;
    auto at = r.out.find("sampled on one side only");
    ASSERT_NE(at, std::string::npos) << r.out;
    auto line = r.out.find("srso_return_thunk", at);
    ASSERT_NE(line, std::string::npos) << r.out;
    EXPECT_NE(r.out.substr(line, r.out.find('\n', line) - line).find("label:srso-on only"), std::string::npos) << r.out;

    std::ifstream j(json);
    auto doc = nlohmann::json::parse(j);
    EXPECT_EQ(doc["schema"], "exitbench-host-diff");
    EXPECT_EQ(doc["unit"], "run");
    EXPECT_EQ(doc["family"], 0);
    bool found = false;
    for (const auto& o : doc["one_sided"]) found = found || (o["function"] == "srso_return_thunk" && o["side"] == "a");
    EXPECT_TRUE(found) << doc["one_sided"].dump();
    std::ifstream c(csv);
    std::string text((std::istreambuf_iterator<char>(c)), {});
    EXPECT_EQ(text.rfind("test,function,a_ns,b_ns,change_ns,ci_lo_ns,ci_hi_ns,p_holm,verdict", 0), 0u) << text;
    EXPECT_NE(text.find("cpuid,srso_return_thunk,"), std::string::npos);
    EXPECT_NE(text.find("A only"), std::string::npos);
    std::ifstream h(html);
    std::string page((std::istreambuf_iterator<char>(h)), {});
    EXPECT_NE(page.find("flame_diff"), std::string::npos);
}

TEST_F(HostProfileSaved, RunFilesCompareAndBadSidesAreRefused) {
    auto r = run_cli({"profile", "compare", fixture("host-profile-srso-on.json"), fixture("host-profile-mitigations-off.json")});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("srso_return_thunk"), std::string::npos);
    // A run without a host profile, the same run twice, a trace beside a run: one line, exit 2.
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"profile", "compare", fixture("v4-imported-kut.json"), fixture("host-profile-srso-on.json")},
             {"profile", "compare", fixture("host-profile-srso-on.json"), fixture("host-profile-srso-on.json")},
             {"profile", "compare", fixture("host-profile-srso-on.json"),
              eb::test::fixtures_dir() + "/profile/nested-svm-cpuid-msr-io.trace"},
             // Traces: the saved runs' own options and formats do not apply to them.
             {"profile", "compare", eb::test::fixtures_dir() + "/profile/nested-svm-cpuid-msr-io.trace", eb::test::fixtures_dir() + "/profile/nested-svm-cpuid-msr-io.trace", "--db", temp_path("h.db")},
             {"profile", "compare", eb::test::fixtures_dir() + "/profile/nested-svm-cpuid-msr-io.trace", eb::test::fixtures_dir() + "/profile/nested-svm-cpuid-msr-io.trace", "--export-csv", temp_path("t.csv")},
             // Saved runs: a host profile has no exit reasons.
             {"profile", "compare", fixture("host-profile-srso-on.json"), fixture("host-profile-mitigations-off.json"),
              "--event", "msr"}}) {
        auto bad = run_cli(args);
        EXPECT_EQ(bad.rc, 2) << bad.out << bad.err;
        EXPECT_TRUE(one_line(bad.err)) << bad.err;
    }
}

} // namespace

namespace {

// The same through a real KVM (the nested kvm_amd stage runs it where the
// host has none): two profiled runs saved, then compared from the history.
KVM_TEST_F(HostProfileSaved, TwoProfiledRunsSavedAndComparedFromTheHistory) {
    std::string db = temp_path("h.db");
    for (const char* label : {"a", "b"}) {
        auto r = run_cli({"run", "cpuid", "-n", "2000", "--sessions", "1", "-r", "4", "--host-profile", "--db", db,
                          "--label", label});
        ASSERT_EQ(r.rc, 0) << r.err;
    }
    auto show = run_cli({"history", "show", "2", "--db", db});
    ASSERT_EQ(show.rc, 0) << show.err;
    EXPECT_NE(show.out.find("host profile, saved with the run"), std::string::npos) << show.out;
    std::string json = temp_path("d.json");
    auto cmp = run_cli({"profile", "compare", "label:a", "label:b", "--db", db, "--export-json", json});
    ASSERT_EQ(cmp.rc, 0) << cmp.err;
    EXPECT_NE(cmp.out.find("not testable: one run a side"), std::string::npos) << cmp.out;
    std::ifstream j(json);
    auto doc = nlohmann::json::parse(j);
    EXPECT_EQ(doc["unit"], "run");
    EXPECT_FALSE(doc["functions"].empty()) << doc.dump();
}

} // namespace
