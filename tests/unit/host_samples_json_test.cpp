// run --host-profile's profile in the result (result/host_samples_json.h):
// it round-trips, a malformed one is refused naming what, and a result
// from before it (schema_version 4, written by exitbench before the change)
// reads with none.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "result/host_samples_json.h"
#include "result/json.h"
#include "sample_report.h"
#include "sys/error.h"
#include "tests/paths.h"

using namespace eb;
using nlohmann::json;

namespace {

profile::TestHostProfile sampled() {
    profile::TestHostProfile p;
    p.test = "cpuid";
    p.add({"entry_SYSCALL_64", "kvm_vcpu_ioctl", "vcpu_enter_guest", "svm_vcpu_run"}, 6);
    p.add({"entry_SYSCALL_64", "kvm_vcpu_ioctl", "vcpu_enter_guest", "kvm_emulate_cpuid"}, 3);
    p.add({"entry_SYSCALL_64", "kvm_vcpu_ioctl", "odd;name"}, 1);  // folded stacks keep no ';' in a frame
    p.event = "cpu-clock";
    p.fallback_why = "no hardware PMU";
    p.frequency_hz = 1000;
    p.threads = 1;
    p.counts.lost = 2;
    p.sampled = {2, 128, 128 * 1100.0};
    p.plain = {2, 128, 128 * 1000.0};
    p.sampled_seconds = 0.25;
    p.max_batch_iterations = 64;
    p.host_counts = profile::HostCounts{5000, 9000, 128, 2};
    return p;
}

suite::RunReport with_samples() {
    auto r = sample_report();
    r.results[1].host_samples = sampled();
    return r;
}

} // namespace

TEST(HostSamplesJson, RoundTripsThroughTheResult) {
    auto r = with_samples();
    auto j = result::to_json(r);
    EXPECT_EQ(j["schema_version"], result::kSchemaVersion);
    EXPECT_TRUE(j["results"][0]["host_samples"].is_null());
    const auto& hs = j["results"][1]["host_samples"];
    EXPECT_EQ(hs["event"], "cpu-clock");
    EXPECT_NEAR(hs["overhead_pct"].get<double>(), 10.0, 1e-9);
    // The leaf with the most samples, self 6 of 10 of 1100 cycles.
    bool found = false;
    for (const auto& f : hs["functions"])
        if (f["name"] == "svm_vcpu_run") {
            found = true;
            EXPECT_EQ(f["self"], 6);
            EXPECT_NEAR(f["self_cycles"].get<double>(), 660, 1e-9);
        }
    EXPECT_TRUE(found);

    auto back = result::from_json(json::parse(j.dump()));
    ASSERT_TRUE(back.results[1].host_samples);
    const auto& p = *back.results[1].host_samples;
    auto want = sampled();
    EXPECT_EQ(p.test, "cpuid");
    EXPECT_EQ(p.samples, want.samples);
    EXPECT_EQ(p.stacks.size(), want.stacks.size());
    EXPECT_EQ((p.stacks.at({"entry_SYSCALL_64", "kvm_vcpu_ioctl", "odd:name"})), 1u);
    EXPECT_EQ((p.stacks.at({"entry_SYSCALL_64", "kvm_vcpu_ioctl", "vcpu_enter_guest", "svm_vcpu_run"})), 6u);
    EXPECT_EQ(p.fallback_why, want.fallback_why);
    EXPECT_EQ(p.counts.lost, 2u);
    EXPECT_EQ(p.sampled.iterations, 128u);
    EXPECT_DOUBLE_EQ(p.plain.cycles, want.plain.cycles);
    ASSERT_TRUE(p.host_counts);
    EXPECT_EQ(p.host_counts->instructions, 5000u);
    // What was derived is derived again, the same.
    EXPECT_EQ(result::to_json(back)["results"][1]["host_samples"], hs);
    EXPECT_FALSE(back.results[0].host_samples);
}

TEST(HostSamplesJson, MalformedProfilesAreRefusedNamingWhat) {
    auto expect_refused = [](const std::function<void(json&)>& spoil, const std::string& needle) {
        auto j = result::to_json(with_samples());
        spoil(j["results"][1]["host_samples"]);
        try {
            result::from_json(j);
            ADD_FAILURE() << "accepted: " << needle;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    expect_refused([](json& h) { h["samples"] = 11; }, "not the folded stacks' sum");
    expect_refused([](json& h) { h["folded"].push_back("a;b"); }, "is not \"frame;...;frame COUNT\"");
    expect_refused([](json& h) { h["folded"].push_back("a;b 0"); }, "is not \"frame;...;frame COUNT\"");
    expect_refused([](json& h) { h["folded"].push_back("a;b -3"); }, "is not \"frame;...;frame COUNT\"");
    expect_refused([](json& h) { h.erase("unsampled_batches"); }, "missing \"unsampled_batches\"");
    expect_refused([](json& h) { h["ring"]["lost"] = "two"; }, "\"lost\" in host_samples.ring");
    // Version 5 must say whether there is one.
    auto j = result::to_json(with_samples());
    j["results"][0].erase("host_samples");
    EXPECT_THROW(result::from_json(j), InputError);
}

// A result exitbench wrote at schema_version 4, before host profiles were
// kept (an imported kvm-unit-tests log, `history export --json`): it reads,
// with no host profile in any test, and writes again at the current version.
TEST(HostSamplesJson, AnOlderResultReadsWithNoProfile) {
    std::ifstream in(test::fixtures_dir() + "/results/v4-imported-kut.json");
    ASSERT_TRUE(in) << "fixture missing";
    auto j = result::parse_document(in, "v4-imported-kut.json");
    ASSERT_EQ(j["schema_version"], 4);
    auto r = result::from_json(j);
    ASSERT_FALSE(r.results.empty());
    for (const auto& t : r.results) EXPECT_FALSE(t.host_samples) << t.name;
    auto again = result::to_json(r);
    EXPECT_EQ(again["schema_version"], result::kSchemaVersion);
    for (const auto& t : again["results"]) EXPECT_TRUE(t["host_samples"].is_null());
}
