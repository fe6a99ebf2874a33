#include "lab/records.h"

#include <cmath>
#include <filesystem>

#include "history/store.h"
#include "result/json.h"
#include "stats/summary.h"

namespace eb::lab {

namespace {

Record from_run(const suite::RunReport& r) {
    Record rec{r.provenance.boot_id, {}};
    for (const auto& t : r.results) {
        if (suite::is_failure(t.status) || t.status == suite::Status::Skipped) continue;
        auto& logs = rec.session_logs[t.name];
        for (const auto& s : t.sessions)
            if (!s.samples.empty())
                if (double m = stats::median(s.samples); m > 0) logs.push_back(std::log(m));
    }
    return rec;
}

} // namespace

std::vector<Record> records(const std::string& db, const suite::CalibrationIdentity& id) {
    std::vector<Record> out;
    std::error_code ec;
    if (!std::filesystem::exists(db, ec)) return out;
    history::Store store(db, history::Store::Mode::ReadOnly);
    for (const auto& c : store.calibrations(id.hostname)) {
        if (!suite::mismatches(c.identity, id).empty() || c.boot_id.empty()) continue;
        size_t runs = 0;
        for (const auto& t : c.tests) runs = std::max(runs, t.session_logs.size());
        for (size_t k = 0; k < runs; ++k) {
            Record rec{c.boot_id, {}};
            for (const auto& t : c.tests)
                if (k < t.session_logs.size()) rec.session_logs[t.test] = t.session_logs[k];
            out.push_back(std::move(rec));
        }
    }
    for (const auto& row : store.list({})) {
        if (row.hostname != id.hostname || row.kernel_release != id.kernel_release || row.boot_id.empty() ||
            !row.source.empty())
            continue;
        auto text = store.result_json(row.id);
        if (!text) continue;
        try {
            auto r = result::from_json(nlohmann::json::parse(*text));
            if (suite::mismatches(id, suite::identity_of(r)).empty()) out.push_back(from_run(r));
        } catch (const std::exception&) {
            continue;  // a run this build cannot read has nothing to add here
        }
    }
    return out;
}

} // namespace eb::lab
