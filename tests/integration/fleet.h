// A fleet for `report merge` tests, made from one real run on this machine.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "sys/file.h"

// One real run, then a file per host name with its figures: 1.3 times as
// many cycles on the host named "slow", and another kernel on "newkernel".
inline std::vector<std::string> fleet(const TempDir& dir, const std::vector<std::string>& hosts) {
    auto r = run_cli({"run", "cpuid", "inl_from_qemu", "-r", "3", "-n", "2000", "--no-save", "--json", dir.file("real.json")});
    EXPECT_EQ(r.rc, 0) << r.err;
    auto base = nlohmann::json::parse(slurp(dir.file("real.json")));
    std::vector<std::string> files;
    for (const auto& h : hosts) {
        nlohmann::json j = base;
        j["provenance"]["hostname"] = h;
        if (h == "newkernel") j["env"]["kernel.release"] = "9.9.9-test";
        if (h == "slow")
            for (auto& t : j["results"])
                for (auto& s : t["sessions"])
                    for (auto& x : s["samples_cycles_per_iter"]) x = x.get<double>() * 1.3;
        files.push_back(dir.file(h + ".json"));
        eb::sys::write_file(files.back(), j.dump(2));
    }
    return files;
}

