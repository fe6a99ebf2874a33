#include "lab/imports.h"

#include "history/store.h"
#include "ingest/calibration.h"
#include "lab/run.h"
#include "lab/saved_runs.h"
#include "lab/version.h"

namespace eb::lab {

std::vector<KutImport> import_kut(const std::vector<std::string>& files, KutGrouping g,
                                  const std::vector<std::string>& argv, std::string& notes) {
    auto runs = ingest::kut_imports(files, g, notes);
    for (auto& r : runs) {
        auto imported = r.run.provenance.imported;
        r.run.provenance = capture_provenance(argv);
        r.run.provenance.hostname.clear();
        r.run.provenance.boot_id.clear();
        r.run.provenance.imported = imported;
        r.run.tool_version = version();
        r.run.host.cpu_model = "unknown (imported)";
    }
    return runs;
}

std::vector<KutImport> import_result_files(const std::vector<std::string>& files) {
    std::vector<KutImport> runs;
    for (const auto& f : files) runs.push_back({load_result(f, ""), f});
    return runs;
}

size_t save_imports(const std::string& db_file, const std::vector<KutImport>& runs, const std::string& label,
                    const std::string& note, const std::atomic<bool>& stop,
                    const std::function<void(const KutImport&, int64_t id)>& saved) {
    size_t n = 0;
    try {
        for (; n < runs.size() && !stop.load(); ++n) saved(runs[n], history::save_run(db_file, runs[n].run, label, note));
    } catch (const history::StoreError& e) {
        throw InputError(e.what());
    }
    return n;
}

int64_t import_calibration(const std::string& file, const std::string& db_file) {
    require_saveable(db_file);
    auto cal = ingest::read_kept_calibration(file);
    try {
        return history::save_calibration(db_file, cal);
    } catch (const history::StoreError& e) {
        throw InputError(e.what());
    }
}

} // namespace eb::lab
