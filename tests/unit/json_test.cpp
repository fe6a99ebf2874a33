#include <gtest/gtest.h>

#include "report/json.h"
#include "sample_report.h"

using namespace eb;
using nlohmann::json;

TEST(Json, RoundTripKeepsEverything) {
    auto r = sample_report();
    auto back = report::from_json(json::parse(report::to_json(r).dump()));
    ASSERT_EQ(back.results.size(), r.results.size());
    EXPECT_EQ(back.host.backend, vmm::Backend::Svm);
    EXPECT_EQ(back.host.cpu_model, "Test CPU");
    EXPECT_EQ(back.settings.iterations, 64u);
    EXPECT_EQ(back.settings.cpu, 1);
    EXPECT_EQ(back.results[1].samples, r.results[1].samples);
    EXPECT_EQ(back.results[1].exits.measured, 1.0);
    EXPECT_FALSE(back.results[2].exits.measured);
    EXPECT_EQ(back.results[3].status, suite::Status::Hung);
    EXPECT_DOUBLE_EQ(back.results[1].kvm_stats_per_iter["exits"], 1.02);
}

TEST(Json, SummaryHasBaselineSubtraction) {
    auto j = report::to_json(sample_report());
    EXPECT_DOUBLE_EQ(j["baseline_cycles"].get<double>(), 100);
    EXPECT_DOUBLE_EQ(j["results"][1]["summary"]["minus_baseline_cycles"].get<double>(), 1134.7);
    EXPECT_TRUE(j["results"][0]["summary"]["minus_baseline_cycles"].is_null());
    EXPECT_FALSE(j["results"][2].contains("summary"));
}

TEST(Json, ForeignOrMalformedDocumentsGiveOneLineErrors) {
    auto expect_error = [](const json& j, const std::string& needle) {
        try {
            report::from_json(j);
            FAIL() << "accepted " << j.dump();
        } catch (const std::runtime_error& e) {
            std::string msg = e.what();
            EXPECT_NE(msg.find(needle), std::string::npos) << msg;
            EXPECT_EQ(msg.find('\n'), std::string::npos);
        }
    };
    expect_error(json::array(), "not an exitbench run");
    expect_error(json{{"schema", "other"}}, "not an exitbench run");
    auto j = report::to_json(sample_report());
    j["schema_version"] = 99;
    expect_error(j, "schema version 99");
    j = report::to_json(sample_report());
    j["results"][0].erase("samples_cycles_per_iter");
    expect_error(j, "samples_cycles_per_iter");
    j = report::to_json(sample_report());
    j["results"][0]["status"] = "great";
    expect_error(j, "unknown status");
}
