#include "lab/profile_files.h"

#include <filesystem>
#include <fmt/format.h>
#include <set>

#include "ingest/perf_kvm.h"
#include "ingest/profile_input.h"
#include "report/sha256.h"
#include "sys/error.h"
#include "lab/run.h"

namespace eb::lab {

PerfEvents import_perf_data(const std::string& perf_data, const std::string& out) {
    ingest::check_perf_data(perf_data);
    require_writable(out);
    return ingest::import_perf_data(perf_data, out);
}

ProfileReport read_profile(const std::string& path, const ProfileOptions& opt) {
    return ingest::read_profile(path, opt);
}

std::vector<ReasonChange> compare_profiles(const std::vector<std::string>& olds, const std::vector<std::string>& news,
                                           const ProfileOptions& opt, bool sets) {
    if (!sets) {
        if (olds.size() != 1 || news.size() != 1) throw std::invalid_argument("compare_profiles: one file a side");
        auto old_rep = read_profile(olds[0], opt);
        return profile::compare(old_rep, read_profile(news[0], opt));
    }
    std::set<std::string> seen;
    std::vector<ProfileReport> old_reps, new_reps;
    for (auto* side : {&olds, &news})
        for (const auto& f : *side) {
            std::error_code ec;
            if (!seen.insert(std::filesystem::weakly_canonical(f, ec).string()).second)
                throw InputError(fmt::format("{} is given twice; each trace counts once", f));
            (side == &olds ? old_reps : new_reps).push_back(read_profile(f, opt));
        }
    return profile::compare_sets(old_reps, new_reps);
}

PerfTables import_perf_tables(const std::string& file) {
    PerfTables t{file, "", {}, nlohmann::json::array()};
    std::string text;
    t.tables = ingest::read_perf_tables(file, text);
    t.sha256 = report::sha256_hex(text);
    for (const auto& table : t.tables) {
        auto j = profile::to_json(table);
        j["source"] = {{"tool", "perf kvm stat report"}, {"file", file}, {"sha256", t.sha256}};
        t.json.push_back(std::move(j));
    }
    return t;
}

} // namespace eb::lab
