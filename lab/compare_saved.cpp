#include "lab/compare_saved.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <set>
#include <tuple>

#include "env/host_env.h"
#include "lab/calibration_lookup.h"
#include "lab/saved_runs.h"
#include "report/sha256.h"
#include "result/json.h"
#include "sys/error.h"

namespace eb::lab {

namespace {

std::string side_label(const std::vector<std::string>& files, const char* name) {
    return files.size() == 1 ? files[0] : fmt::format("{} ({} files)", name, files.size());
}

// Facts that make two results come from different machines, not just
// different moments: a difference in these is a warning of its own.
const std::set<std::string> kHostDefining = {"cpu.model", "cpu.microcode", "kernel.release", "kernel.cmdline",
                                             "kvm.backend", "kvm.module"};

// A side given as history references keeps their names: "label:A (3 runs)".
std::string ref_label(const std::vector<std::string>& refs, size_t runs) {
    return runs == 1 ? fmt::format("{}", fmt::join(refs, " ")) : fmt::format("{} ({} runs)", fmt::join(refs, " "), runs);
}

// label:L and run:N become the "run:N" names of the runs they hold.
std::vector<std::vector<std::string>> expand_sides(const std::vector<std::vector<std::string>>& refs,
                                                   const std::string& db) {
    std::vector<std::vector<std::string>> out;
    for (const auto& side : refs) {
        out.emplace_back();
        for (const auto& r : side) {
            if (!is_history_ref(r)) {
                out.back().push_back(r);
                continue;
            }
            auto runs = expand_ref(db, r);
            out.back().insert(out.back().end(), runs.begin(), runs.end());
        }
    }
    return out;
}

// Host facts, schema versions: what differs between the files, said up front.
std::vector<std::string> provenance(const std::vector<std::vector<std::string>>& paths,
                                    const std::vector<std::vector<suite::RunReport>>& sides) {
    std::vector<std::string> out;
    const auto& ref = sides[0][0];
    for (size_t k = 0; k < sides.size(); ++k)
        for (size_t i = 0; i < sides[k].size(); ++i) {
            const auto& r = sides[k][i];
            if (const auto& im = r.provenance.imported) {
                out.push_back(fmt::format("note: {} is imported from {} ({}): one figure per test (vmexit.flat's "
                                          "mean over its timed batch, no repeats), host and exits unknown",
                                          paths[k][i], im->source, im->file));
                continue;
            }
            if (k == 0 && i == 0) continue;
            if (ref.provenance.imported) continue;  // nothing known to differ from
            for (const auto& d : env::diff(ref.env, r.env))
                out.push_back(kHostDefining.count(d.key)
                                  ? fmt::format("warning: hosts differ ({} vs {}): {}: '{}' vs '{}'", paths[0][0],
                                                paths[k][i], d.key, d.a, d.b)
                                  : fmt::format("  fact {} ({}): '{}' vs '{}'", d.key, paths[k][i], d.a, d.b));
            if (r.schema_version != ref.schema_version)
                out.push_back(fmt::format("warning: {} has schema version {}, {} has {} (version 1 holds one session "
                                          "per test)", paths[k][i], r.schema_version, paths[0][0], ref.schema_version));
        }
    if (out.empty()) out.push_back("every file comes from a host with the same recorded facts");
    std::set<std::string> boots;
    for (const auto& side : sides)
        for (const auto& r : side)
            if (!r.provenance.boot_id.empty()) boots.insert(r.provenance.boot_id);
    if (boots.size() > 1)
        out.push_back(fmt::format("note: the runs span {} boots; a side with runs from two or more boots shows "
                                  "the between-boot spread as a level of its own", boots.size()));
    return out;
}

// Saved results with no test in common have nothing to compare.
void require_shared_test(const std::vector<std::vector<std::string>>& paths,
                         const std::vector<std::vector<suite::RunReport>>& sides) {
    auto names = [](const std::vector<suite::RunReport>& side) {
        std::set<std::string> n;
        for (const auto& r : side)
            for (const auto& t : r.results) n.insert(t.name);
        return n;
    };
    auto a = names(sides[0]), b = names(sides[1]);
    if (std::none_of(a.begin(), a.end(), [&](const auto& t) { return b.count(t); }))
        throw InputError(fmt::format("{} and {} share no test", fmt::join(paths[0], " "), fmt::join(paths[1], " ")));
}

// The same input twice would count one run as two units: refused, whether it
// is the same path, the same saved run or the same content.
void refuse_duplicates(const std::vector<std::vector<std::string>>& paths,
                       const std::vector<std::vector<suite::RunReport>>& sides) {
    std::vector<std::tuple<std::string, std::string, std::string>> seen;  // name, identity, sha256
    for (size_t k = 0; k < paths.size(); ++k)
        for (size_t i = 0; i < paths[k].size(); ++i) {
            const auto& p = paths[k][i];
            std::error_code ec;
            std::string id = is_history_ref(p) ? p : std::filesystem::weakly_canonical(p, ec).string();
            std::string digest = report::sha256_hex(result::to_json(sides[k][i]).dump());
            for (const auto& [name, other_id, other_digest] : seen)
                if (id == other_id || digest == other_digest)
                    throw InputError(fmt::format(
                        "{} and {} are the same input ({}); each run counts once: compare distinct runs", name, p,
                        id != other_id ? "same content, sha256 " + digest.substr(0, 16)
                        : is_history_ref(p) ? std::string("the same saved run") : "the same file"));
            seen.emplace_back(p, id, digest);
        }
}

} // namespace

suite::ComparisonReport compare_saved(const std::vector<std::vector<std::string>>& refs, const std::string& db,
                                      double alpha, std::vector<std::string>& header, double target) {
    auto paths = expand_sides(refs, db);
    std::vector<std::vector<suite::RunReport>> sides(paths.size());
    std::vector<std::string> labels;
    for (size_t k = 0; k < paths.size(); ++k) {
        for (const auto& p : paths[k]) sides[k].push_back(load_result(p, db));
        bool from_history = std::any_of(refs[k].begin(), refs[k].end(), is_history_ref);
        labels.push_back(from_history ? ref_label(refs[k], paths[k].size()) : side_label(paths[k], k == 0 ? "A" : "B"));
        if (paths[k].size() > 1) header.push_back(fmt::format("  {}: {}", labels.back(), fmt::join(paths[k], " ")));
    }
    bool any_history = std::any_of(refs.begin(), refs.end(), [](const auto& side) {
        return std::any_of(side.begin(), side.end(), is_history_ref);
    });
    header.push_back(fmt::format("saved results: {} vs {} {}", sides[0].size(), sides[1].size(),
                                 any_history ? "run(s)" : "file(s)"));
    refuse_duplicates(paths, sides);
    auto prov = provenance(paths, sides);
    header.insert(header.end(), prov.begin(), prov.end());
    require_shared_test(paths, sides);
    auto found = lab::find_calibrations(db, sides);
    auto cmp = suite::compare_saved(labels, sides, alpha, found.spreads, target);
    if (cmp.unit == suite::Unit::Run) cmp.warnings.insert(cmp.warnings.end(), found.warnings.begin(), found.warnings.end());
    return cmp;
}

} // namespace eb::lab
