#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "result/json.h"
#include "sample_report.h"

using namespace eb;
using nlohmann::json;

TEST(Json, RoundTripKeepsEverything) {
    auto r = sample_report();
    auto back = result::from_json(json::parse(result::to_json(r).dump()));
    ASSERT_EQ(back.results.size(), r.results.size());
    EXPECT_EQ(back.host.backend, vmm::Backend::Svm);
    EXPECT_EQ(back.host.cpu_model, "Test CPU");
    EXPECT_EQ(back.settings.iterations, 64u);
    EXPECT_EQ(back.settings.cpu, 1);
    EXPECT_EQ(back.results[1].sessions[0].samples, r.results[1].sessions[0].samples);
    EXPECT_EQ(back.results[1].sessions[0].iterations, 64u);
    EXPECT_EQ(back.results[1].exits.measured, 1.0);
    EXPECT_FALSE(back.results[2].exits.measured);
    EXPECT_EQ(back.results[3].status, suite::Status::Hung);
    EXPECT_DOUBLE_EQ(back.results[1].kvm_stats_per_iter["exits"], 1.02);
}

// Issue 24: a sample <= 0 reached Boost as a NaN log ("report merge" exit 3).
TEST(Json, NonPositiveSamplesAreRefusedNamingTheTest) {
    for (double bad : {0.0, -5.0}) {
        auto j = result::to_json(sample_report());
        j["results"][1]["sessions"][0]["samples_cycles_per_iter"][1] = bad;
        try {
            result::from_json(j);
            ADD_FAILURE() << bad;
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("test \"cpuid\""), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("not a positive cycle count"), std::string::npos) << e.what();
        }
    }
}

TEST(Json, SummaryHasBaselineSubtraction) {
    auto j = result::to_json(sample_report());
    EXPECT_DOUBLE_EQ(j["baseline_cycles"].get<double>(), 100);
    EXPECT_DOUBLE_EQ(j["results"][1]["summary"]["minus_baseline_cycles"].get<double>(), 1134.7);
    EXPECT_TRUE(j["results"][0]["summary"]["minus_baseline_cycles"].is_null());
    EXPECT_TRUE(j["results"][2]["summary"].is_null());
    EXPECT_EQ(j["results"][1]["summary"]["interval_level"], "within-session");
}

TEST(Json, ForeignOrMalformedDocumentsGiveOneLineErrors) {
    auto expect_error = [](const json& j, const std::string& needle) {
        try {
            result::from_json(j);
            FAIL() << "accepted " << j.dump();
        } catch (const std::runtime_error& e) {
            std::string msg = e.what();
            EXPECT_NE(msg.find(needle), std::string::npos) << msg;
            EXPECT_EQ(msg.find('\n'), std::string::npos);
        }
    };
    expect_error(json::array(), "not an exitbench run");
    expect_error(json{{"schema", "other"}}, "not an exitbench run");
    auto j = result::to_json(sample_report());
    j["schema_version"] = 99;
    expect_error(j, "schema version 99");
    j = result::to_json(sample_report());
    j["results"][0].erase("sessions");
    expect_error(j, "sessions");
    j = result::to_json(sample_report());
    j["results"][0]["status"] = "great";
    expect_error(j, "unknown status");
}

TEST(Json, ReadsVersionOneAsOneSessionPerTest) {
    auto j = result::to_json(sample_report());
    j["schema_version"] = 1;
    for (auto& t : j["results"]) {
        json flat = json::array();
        for (const auto& s : t["sessions"])
            for (const auto& x : s["samples_cycles_per_iter"]) flat.push_back(x);
        t["samples_cycles_per_iter"] = flat;
        t.erase("sessions");
    }
    j["settings"].erase("sessions");
    auto r = result::from_json(j);
    EXPECT_EQ(r.schema_version, 1);
    ASSERT_EQ(r.results[1].sessions.size(), 1u);
    EXPECT_EQ(r.results[1].sessions[0].samples.size(), 3u);
    EXPECT_TRUE(r.results[2].sessions.empty());
}

TEST(Json, SeveralSessionsGiveABetweenSessionInterval) {
    auto r = sample_report();
    r.results[1].sessions.push_back({{1250, 1260, 1270}, 64});
    r.results[1].sessions.push_back({{1210, 1220, 1230}, 64});
    auto j = result::to_json(r);
    const auto& s = j["results"][1]["summary"];
    EXPECT_EQ(s["interval_level"], "between-session");
    EXPECT_EQ(s["sessions"], 3);
    EXPECT_EQ(j["results"][1]["sessions"].size(), 3u);
    EXPECT_NEAR(s["cycles"].get<double>(), std::cbrt(1234.7 * 1260 * 1220), 1e-6);
}

TEST(Json, NumbersOutOfRangeAreRejectedNotConverted) {
    auto j = result::to_json(sample_report());
    j["host"]["host_cpus"] = 1e300;
    EXPECT_THROW(result::from_json(j), std::runtime_error);
    j = result::to_json(sample_report());
    j["results"][1]["vcpus"] = -1;
    EXPECT_THROW(result::from_json(j), std::runtime_error);
    j = result::to_json(sample_report());
    j["results"][1]["iterations_per_batch"] = 2.5;
    EXPECT_THROW(result::from_json(j), std::runtime_error);
}

TEST(Json, DeepNestingIsRefusedWhileParsing) {
    std::string deep = "{\"env\": {\"deep\": " + std::string(100000, '[') + std::string(100000, ']') + "}}";
    std::istringstream in(deep);
    try {
        result::parse_document(in, "deep.json");
        FAIL() << "accepted 100000 levels";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("deep.json: nested deeper than 64 levels"), std::string::npos) << e.what();
    }
    std::istringstream cut("{\"schema\": \"exitbench-run\", \"results\": [");
    try {
        result::parse_document(cut, "cut.json");
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cut.json is not valid JSON"), std::string::npos) << e.what();
    }
}

TEST(Json, ProvenanceRoundTripsAndIsEmptyBeforeVersionThree) {
    auto r = sample_report();
    r.provenance = {"2026-12-01T07:00:00Z", "host1", {"exitbench", "run", "--label", "a b"}, "v0.1-2-gabc", "b-1"};
    auto j = result::to_json(r);
    EXPECT_EQ(j["schema_version"], result::kSchemaVersion);
    auto back = result::from_json(j);
    EXPECT_EQ(back.provenance.timestamp_utc, "2026-12-01T07:00:00Z");
    EXPECT_EQ(back.provenance.argv, r.provenance.argv);
    EXPECT_EQ(back.provenance.boot_id, "b-1");
    EXPECT_FALSE(back.provenance.imported);

    // Version 3 had no "imported": it reads as measured.
    auto v3doc = j;
    v3doc["schema_version"] = 3;
    v3doc["provenance"].erase("imported");
    EXPECT_FALSE(result::from_json(v3doc).provenance.imported);
    j["provenance"].erase("imported");  // version 4 without it is malformed
    EXPECT_THROW(result::from_json(j), std::runtime_error);

    j["schema_version"] = 2;
    j.erase("provenance");
    auto v2 = result::from_json(j);
    EXPECT_EQ(v2.schema_version, 2);
    EXPECT_TRUE(v2.provenance.hostname.empty() && v2.provenance.argv.empty());

    j["schema_version"] = 3;  // version 3 without it is malformed
    EXPECT_THROW(result::from_json(j), std::runtime_error);
}

// A module A/B's run keeps its load (version 6); version 5 had none.
TEST(Json, TheModuleLoadRoundTripsAndIsAbsentBeforeVersionSix) {
    auto r = sample_report();
    r.provenance.module_load = suite::ModuleLoad{"kvm_amd", "3f2c", {{"npt", "N"}, {"nested", "Y"}}};
    auto j = result::to_json(r);
    auto back = result::from_json(j);
    ASSERT_TRUE(back.provenance.module_load);
    EXPECT_EQ(back.provenance.module_load->module, "kvm_amd");
    EXPECT_EQ(back.provenance.module_load->id, "3f2c");
    EXPECT_EQ(back.provenance.module_load->params.size(), 2u);
    auto v5 = j;
    v5["schema_version"] = 5;
    EXPECT_FALSE(result::from_json(v5).provenance.module_load);
    j["provenance"]["module_load"]["params"]["npt"] = 0;  // a parameter is a string, as sysfs shows it
    EXPECT_THROW(result::from_json(j), std::runtime_error);
    j["provenance"].erase("module_load");  // version 6 without it is malformed
    EXPECT_THROW(result::from_json(j), std::runtime_error);
}
