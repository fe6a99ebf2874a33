// exitbench calibrate against /dev/kvm: a calibration of two tests, stored,
// that plans a later compare's runs (one run a side stays not testable); the one-line
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

// One run a side is not testable, with a calibration or without (exit 4
// under a gate); the calibration plans the runs, and says which it is.
KVM_TEST(Calibrate, StoresACalibrationThatPlansTheRunsOneRunASideCannotTest) {
    TempDir dir;
    auto db = dir.file("h.db");
    const std::vector<std::string> opts{"cpuid", "inl_from_kernel", "-n", "32", "--sessions", "2", "-r", "3"};
    std::vector<std::string> cal{"calibrate", "--runs", "3", "--db", db};
    cal.insert(cal.end(), opts.begin(), opts.end());
    auto c = run_cli(cal, long_run());
    ASSERT_EQ(c.rc, 0) << c.err << c.out;
    for (const char* part : {"calibration 1 of", "3 runs x 2 sessions x 3 repeats", "\ncpuid\n", "\ninl_from_kernel\n",
                             "a detectable 1%", "or interleaved in one process (compare --a/--b): ",
                             "boots: 1 on record (this one)", "One run a side stays not testable"})
        EXPECT_NE(c.out.find(part), std::string::npos) << part << "\n" << c.out;
    for (const char* side : {"a.json", "b.json"}) {
        std::vector<std::string> run{"run", "--no-save", "--json", dir.file(side)};
        run.insert(run.end(), opts.begin(), opts.end());
        ASSERT_EQ(run_cli(run).rc, 0);
    }
    auto out = dir.file("cmp.json");
    auto r = run_cli({"compare", dir.file("a.json"), "--vs", dir.file("b.json"), "--db", db, "--json", out,
                      "--fail-if-slower", "2"});
    EXPECT_EQ(r.rc, 4) << "not testable under a gate: " << r.err;
    auto doc = read_json(out);
    for (const char* test : {"cpuid", "inl_from_kernel"}) {
        const auto& e = effect_of(doc, test);
        EXPECT_EQ(e["verdict"], "not testable") << e.dump() << r.out;
        EXPECT_FALSE(e.contains("run_to_run_spread_from"));
    }
    ASSERT_EQ(doc["plans"].size(), 2u) << doc["plans"].dump();
    EXPECT_DOUBLE_EQ(doc["plans"][0]["target_relative"].get<double>(), 0.02) << "the gate's PCT";
    for (const char* part : {"one run a side is not testable", "a calibration plans the runs instead",
                             "cpuid: for a detectable 2% at alpha 0.025", "the calibration of ", "this boot",
                             " runs x ", " sessions x ", " repeats a side"})
        EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
    // The rounds, or that 1000 do not reach 2% (a noisy host's plan may be out of reach).
    EXPECT_TRUE(r.out.find("exitbench compare cpuid --a 'OPTIONS' --b 'OPTIONS' --rounds ") != std::string::npos ||
                r.out.find("more than 1000 interleaved rounds") != std::string::npos) << r.out;
    // Without the calibration: not testable, and what to run instead.
    auto none = run_cli({"compare", dir.file("a.json"), "--vs", dir.file("b.json"), "--db", dir.file("absent.db")});
    EXPECT_EQ(none.rc, 0) << none.err;
    for (const char* part : {"not testable at the run level (1 vs 1 run)", "no calibration changes that",
                             "--a 'OPTIONS' --b 'OPTIONS' --rounds 8",
                             "exitbench calibrate cpuid inl_from_kernel -n 32 --sessions 2 -r 3"})
        EXPECT_NE(none.out.find(part), std::string::npos) << part << "\n" << none.out;
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
