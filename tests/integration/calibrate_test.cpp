// exitbench calibrate against /dev/kvm: a calibration of two tests, stored,
// that a later compare of one run a side uses and names; and the one-line
// errors of bad input, which need no KVM.
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

using nlohmann::json;

namespace {

const json& effect_of(const json& doc, const std::string& name) {
    for (const auto& t : doc["tests"])
        if (t["test"] == name) return t["vs_first"][0];
    throw std::runtime_error("no " + name);
}

json read_json(const std::string& path) {
    std::ifstream f(path);
    return json::parse(f);
}

} // namespace

namespace {
CliOptions long_run() {
    CliOptions o;
    o.timeout_s = 600;  // three runs of two tests, slow under emulation
    return o;
}
} // namespace

KVM_TEST(Calibrate, StoresACalibrationThatOneRunASideCompareUsesAndNames) {
    TempDir dir;
    auto db = dir.file("h.db");
    const std::vector<std::string> opts{"cpuid", "inl_from_kernel", "-n", "32", "--sessions", "2", "-r", "3"};
    std::vector<std::string> cal{"calibrate", "--runs", "3", "--db", db};
    cal.insert(cal.end(), opts.begin(), opts.end());
    auto c = run_cli(cal, long_run());
    ASSERT_EQ(c.rc, 0) << c.err << c.out;
    for (const char* part : {"calibration 1 of", "3 runs x 2 sessions x 3 repeats", "\ncpuid\n", "\ninl_from_kernel\n",
                             "run-to-run spread compare borrows", "a detectable 1%",
                             "boots: 1 on record (this one)"})
        EXPECT_NE(c.out.find(part), std::string::npos) << part << "\n" << c.out;
    for (const char* side : {"a.json", "b.json"}) {
        std::vector<std::string> run{"run", "--no-save", "--json", dir.file(side)};
        run.insert(run.end(), opts.begin(), opts.end());
        ASSERT_EQ(run_cli(run).rc, 0);
    }
    auto out = dir.file("cmp.json");
    auto r = run_cli({"compare", dir.file("a.json"), dir.file("b.json"), "--db", db, "--json", out});
    EXPECT_EQ(r.rc, 0) << r.err;
    // Borrowed, but 3 runs rank a difference among 3 of their own (p >= 1/4):
    // not testable, with the calibration that makes it testable (or, when the
    // runs are wider than the calibration, the command that recalibrates).
    for (const char* test : {"cpuid", "inl_from_kernel"}) {
        auto doc = read_json(out);
        const auto& e = effect_of(doc, test);
        EXPECT_EQ(e["verdict"], "not testable") << e.dump() << r.out;
        EXPECT_NE(e["run_to_run_spread_from"].dump().find("(3 runs)"), std::string::npos) << e.dump();
    }
    EXPECT_NE(r.out.find("exitbench calibrate cpuid inl_from_kernel -n 32 --sessions 2 -r 3"), std::string::npos)
        << r.out;
    // Without the calibration: not testable, and the command that fixes it.
    auto none = run_cli({"compare", dir.file("a.json"), dir.file("b.json"), "--db", dir.file("absent.db")});
    EXPECT_EQ(none.rc, 0) << none.err;
    EXPECT_NE(none.out.find("not testable at the run level"), std::string::npos) << none.out;
    EXPECT_NE(none.out.find("exitbench calibrate cpuid inl_from_kernel -n 32 --sessions 2 -r 3"), std::string::npos)
        << none.out;
}

TEST(Calibrate, BadInputIsOneLineBeforeAnyRun) {
    TempDir dir;
    for (const auto& [args, rc] : std::vector<std::pair<std::vector<std::string>, int>>{
             {{"calibrate", "cpuid", "--runs", "1", "--db", dir.file("h.db")}, 2},
             {{"calibrate", "cpuid", "--target", "0", "--db", dir.file("h.db")}, 2},
             {{"calibrate", "no_such_test", "--db", dir.file("h.db")}, 2},
             {{"calibrate", "cpuid", "--json", "x.json"}, 2},
             {{"calibrate", "cpuid", "--db", dir.file("h.db"), "--device", dir.file("no-kvm")}, 3}}) {
        auto r = run_cli(args);
        EXPECT_EQ(r.rc, rc) << args[2] << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_TRUE(r.out.empty());
    }
    EXPECT_FALSE(std::ifstream(dir.file("h.db")).good()) << "nothing stored";
}
