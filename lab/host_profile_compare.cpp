#include "lab/host_profile_compare.h"

#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <set>

#include "lab/saved_runs.h"
#include "report/flame_diff.h"
#include "report/host_profile_text.h"
#include "sys/error.h"

namespace eb::lab {

namespace {

struct Side {
    std::string label;
    std::vector<profile::RunProfiles> runs;
};

// A reference's runs, each once across both sides (one run is one unit).
Side load_side(const std::vector<std::string>& refs, const std::string& db, std::set<std::string>& seen) {
    Side s;
    for (const auto& ref : refs) {
        s.label += (s.label.empty() ? "" : " ") + ref;
        std::vector<std::string> names = is_history_ref(ref) ? expand_ref(db, ref) : std::vector<std::string>{ref};
        for (const auto& name : names) {
            std::error_code ec;
            auto key = is_history_ref(name) ? name : std::filesystem::weakly_canonical(name, ec).string();
            if (!seen.insert(key).second)
                throw InputError(fmt::format("{} is given twice; each run counts once", name));
            auto rep = load_result(name, db);
            auto profiles = report::saved_host_profiles(rep);
            if (profiles.empty())
                throw InputError(fmt::format("{} holds no host profile: run it with --host-profile", name));
            s.runs.push_back({std::move(profiles), rep.host.tsc_mhz});
        }
    }
    return s;
}

} // namespace

bool names_saved_run(const std::string& arg) {
    if (is_history_ref(arg)) return true;
    std::ifstream in(arg, std::ios::binary);
    for (int c; in && (c = in.get()) != EOF;)
        if (!std::isspace(c)) return c == '{';
    return false;
}

report::HostProfileComparison compare_saved_host_profiles(const std::vector<std::string>& a, const std::vector<std::string>& b,
                                          const std::string& db, double alpha) {
    std::set<std::string> seen;
    auto sa = load_side(a, db, seen), sb = load_side(b, db, seen);
    profile::HostDiffOptions o;
    o.alpha = alpha;
    report::HostProfileComparison out{profile::host_diff_runs(sa.label, sb.label, sa.runs, sb.runs, o), {}};
    for (const auto& t : profile::tests_of(sa.runs, sb.runs))
        if (auto tree = report::diff_flame_tree_runs(t, sa.runs, sb.runs); !tree.is_null())
            out.flames.push_back({fmt::format("{}: {} vs {}", t, sb.label, sa.label), std::move(tree)});
    return out;
}

} // namespace eb::lab
