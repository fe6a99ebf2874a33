// A/B against /dev/kvm: a true difference and a null one must get the right
// verdicts; saved results compare; bad inputs give one-line errors.
#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

using nlohmann::json;

namespace {
json compare_json(const std::vector<std::string>& args, int want_rc = 0) {
    auto path = temp_path("cmp.json");
    std::vector<std::string> a{"compare", "--json", path};
    a.insert(a.end(), args.begin(), args.end());
    auto r = run_cli(a);
    EXPECT_EQ(r.rc, want_rc) << r.err << r.out;
    std::ifstream f(path);
    return json::parse(f);
}
const json& test_of(const json& doc, const std::string& name) {
    for (const auto& t : doc["tests"])
        if (t["test"] == name) return t;
    throw std::runtime_error("no " + name);
}
} // namespace

// The injected difference (two TSC reads an iteration, --per-exit) is far
// below TCG's noise of microseconds per exit: the nested guest cannot see it.
constexpr const char* kTcgNoise = "its injected difference (two TSC reads an iteration) is far below TCG's noise of microseconds per exit";

KVM_TEST_HOST_ONLY(Compare, DetectsATrueDifference,
    kTcgNoise) {
    // Per-exit timestamps add two serialized TSC reads to every iteration of B.
    auto doc = compare_json({"cpuid", "-n", "32", "--rounds", "10", "--a", "", "--b", "--per-exit"});
    EXPECT_EQ(doc["unit"], "round");
    const auto& v = test_of(doc, "cpuid")["vs_first"][0];
    EXPECT_EQ(v["verdict"], "slower") << v.dump();
    EXPECT_GT(v["ratio"].get<double>(), 1);
    EXPECT_LT(v["p"].get<double>(), 0.05);
    EXPECT_EQ(v["units"][0], 10);
}

// Identical configurations, interleaved: a 0.1% test keeps a false alarm out
// of CI while still asking for the verdict itself.
KVM_TEST(Compare, FindsNoDifferenceBetweenIdenticalConfigurations) {
    auto doc = compare_json({"inl_from_kernel", "-n", "32", "--rounds", "6", "--a", "-r 3", "--b", "-r 3",
                             "--alpha", "0.001"});
    const auto& v = test_of(doc, "inl_from_kernel")["vs_first"][0];
    EXPECT_EQ(v["verdict"], "no detectable difference") << v.dump();
    EXPECT_GT(v["detectable_relative"].get<double>(), 0);
    EXPECT_LE(v["ratio_ci"][0].get<double>(), 1);
    EXPECT_GE(v["ratio_ci"][1].get<double>(), 1);
}

KVM_TEST_HOST_ONLY(Compare, FailIfSlowerGatesARegression,
    kTcgNoise) {
    // 10 rounds: one disturbed round (a busy machine) does not hide it.
    auto r = run_cli({"compare", "cpuid", "-n", "32", "--rounds", "10", "--a", "", "--b", "--per-exit",
                      "--fail-if-slower", "1"});
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_NE(r.err.find("slower"), std::string::npos);
}

KVM_TEST(Compare, TwoSavedSingleSessionRunsAreNotTestable) {
    auto a = temp_path("a.json"), b = temp_path("b.json");
    ASSERT_EQ(run_cli({"run", "cpuid", "-n", "32", "-r", "5", "--sessions", "1", "--json", a}).rc, 0);
    ASSERT_EQ(run_cli({"run", "cpuid", "-n", "32", "-r", "5", "--sessions", "1", "--json", b}).rc, 0);
    // Pretend B came from another kernel: compare warns, and still compares.
    json jb;
    {
        std::ifstream f(b);
        jb = json::parse(f);
    }
    jb["env"]["kernel.release"] = "9.9.9-other";
    {
        std::ofstream f(b);
        f << jb.dump();
    }
    auto r = run_cli({"compare", a, b});
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("hosts differ"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("kernel.release: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("not testable at the run level (1 vs 1 run): observed"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("p = "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("slower"), std::string::npos) << r.out;
    // A gate on no evidence must not pass silently, and says so with its own code.
    auto gate = run_cli({"compare", a, b, "--fail-if-slower", "5"});
    EXPECT_EQ(gate.rc, 4);
    EXPECT_NE(gate.err.find("not testable"), std::string::npos) << gate.err;
}

// One run a side holding three sessions: the sessions share their run, so
// the run is the unit and there is one a side.
KVM_TEST(Compare, OneRunASideOfSeveralSessionsIsNotTestableAtTheRunLevel) {
    auto a = temp_path("a3.json"), b = temp_path("b3.json"), a2 = temp_path("a3b.json"), b2 = temp_path("b3b.json");
    for (const auto& f : {a, b, a2, b2})
        ASSERT_EQ(run_cli({"run", "cpuid", "-n", "32", "-r", "3", "--sessions", "3", "--json", f}).rc, 0);
    auto doc = compare_json({a, "--vs", b});
    EXPECT_EQ(doc["level"], "run");
    EXPECT_EQ(doc["levels_not_seen"][0].get<std::string>().substr(0, 5), "boot:") << doc.dump();
    const auto& v = test_of(doc, "cpuid")["vs_first"][0];
    EXPECT_EQ(v["verdict"], "not testable") << v.dump();
    EXPECT_EQ(v["units"][0], 1);
    EXPECT_TRUE(v["p"].is_null());
    // Two runs a side: a verdict, the run as the unit.
    auto two = compare_json({a, a2, "--vs", b, b2});
    const auto& w = test_of(two, "cpuid")["vs_first"][0];
    EXPECT_NE(w["verdict"], "not testable") << w.dump();
    EXPECT_EQ(w["units"][0], 2);
    EXPECT_TRUE(w["p_holm"].is_number());
    EXPECT_GE(two["family_size"], 1);
}

// The same run given twice would count as two units: refused, one line, exit 2.
KVM_TEST(Compare, TheSameInputTwiceIsRefused) {
    auto a = temp_path("dup.json"), copy = temp_path("dup-copy.json"), b = temp_path("dup-b.json");
    ASSERT_EQ(run_cli({"run", "cpuid", "-n", "32", "-r", "2", "--json", a}).rc, 0);
    ASSERT_EQ(run_cli({"run", "cpuid", "-n", "32", "-r", "2", "--json", b}).rc, 0);
    {
        std::ifstream in(a);
        std::ofstream(copy) << in.rdbuf();
    }
    for (auto [args, needle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"compare", a, a}, "the same file"},
             {{"compare", a, b, "--vs", b}, "the same file"},
             {{"compare", a, b, "--vs", copy}, "same content, sha256"}}) {
        auto r = run_cli(args);
        EXPECT_EQ(r.rc, 2) << r.err << r.out;
        EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
}

KVM_TEST(Compare, DisjointSavedResultsAreAnError) {
    auto a = temp_path("only_cpuid.json"), b = temp_path("only_pio.json");
    ASSERT_EQ(run_cli({"run", "cpuid", "--no-baseline", "-n", "16", "-r", "2", "--json", a}).rc, 0);
    ASSERT_EQ(run_cli({"run", "inl_from_kernel", "--no-baseline", "-n", "16", "-r", "2", "--json", b}).rc, 0);
    auto r = run_cli({"compare", a, b});
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("share no test"), std::string::npos) << r.err;
    // Saved results keep their settings: run options are refused, not ignored.
    r = run_cli({"compare", a, a, "--repeats", "3"});
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("--repeats applies when compare runs configurations itself"), std::string::npos) << r.err;
}

TEST(Compare, BadInputsGiveOneLineErrors) {
    auto bad = temp_path("bad.json"), other = temp_path("other.json"), old = temp_path("old.json");
    {
        std::ofstream(bad) << "{ not json";
        std::ofstream(other) << R"({"hello": 1})";
        std::ofstream(old) << R"({"schema": "exitbench-run", "schema_version": 0})";
    }
    for (auto [args, needle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"compare", bad, other}, "is not valid JSON"},
             {{"compare", other, other}, "not an exitbench run"},
             {{"compare", old, old}, "schema version 0"},
             {{"compare", "missing1.json", "missing2.json"}, "cannot read missing1.json: no such file"},
             {{"compare", bad, "--vs"}, "--vs"},
             {{"compare", "--vs", bad}, "side A is empty"},
             {{"compare", other, other, "--format", "kut"}, "--format kut does not apply to compare"},
             {{"compare", "cpuid", "--a", "--guest-msr nope=1", "--b", ""}, "unknown MSR"},
             {{"compare", "cpuid", "--a", "-r 3"}, "--a and --b go together"},
             {{"compare", "cpuid", "--a", "--sessions 2", "--b", ""}, "--sessions does not apply"},
             {{"compare", "cpuid"}, "needs saved result files"},
             {{"compare", "cpuid", "--a", "'x", "--b", ""}, "unbalanced quote"}}) {
        auto r = run_cli(args);
        EXPECT_EQ(r.rc, 2) << needle << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    }
}

// Hostile saved results: 100 000 levels of nesting, and an escape sequence in
// a string that is printed.
KVM_TEST(Compare, HostileFilesAreRefusedOrShownSafely) {
    auto deep = temp_path("deep.json"), a = temp_path("esc_a.json"), b = temp_path("esc_b.json");
    {
        std::ofstream f(deep);
        f << "{\"schema\": \"exitbench-run\", \"env\": {\"deep\": " << std::string(100000, '[')
          << std::string(100000, ']') << "}}";
    }
    auto r = run_cli({"compare", deep, deep});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("nested deeper than 64 levels"), std::string::npos) << r.err;
    ASSERT_EQ(run_cli({"run", "cpuid", "-n", "16", "-r", "2", "--sessions", "1", "--json", a}).rc, 0);
    json j;
    {
        std::ifstream f(a);
        j = json::parse(f);
    }
    j["results"][1]["detail"] = "\x1b[2J\x1b]0;owned\x07";
    j["env"]["cpu.model"] = "\x1b[31mred";
    {
        std::ofstream f(b);
        f << j.dump();
    }
    r = run_cli({"compare", a, b});
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
    EXPECT_NE(r.out.find("\\x1b[31mred"), std::string::npos) << r.out;
}

// Ctrl-C during a live compare: the rounds that finished are compared and
// written, and the exit status says it was interrupted.
KVM_TEST(Compare, CtrlCComparesTheRoundsThatFinished) {
    auto path = temp_path("interrupted_cmp.json");
    CliOptions o;
    o.sigint_after_s = 5;  // two rounds or more even under emulation (nested_integration)
    auto r = run_cli({"compare", "cpuid", "-n", "32", "--rounds", "1000", "--a", "", "--b", "", "--json", path}, o);
    EXPECT_EQ(r.rc, 130) << r.err;
    EXPECT_NE(r.out.find("rounds interleaved"), std::string::npos) << r.out;
    std::ifstream f(path);
    auto doc = json::parse(f);
    const auto& v = test_of(doc, "cpuid")["vs_first"][0];
    EXPECT_GE(v["units"][0].get<int>(), 2) << v.dump();
    EXPECT_LT(v["units"][0].get<int>(), 1000);
}
