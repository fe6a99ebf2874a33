// `run --host-profile[=HZ]` and `--host-profile-folded FILE`: the flags, and
// what the command line does with the profiler's result (lab/host_profiler.h).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lab/host_profiler.h"
#include "lab/vocabulary.h"

namespace eb::cli {

struct HostProfileArgs {
    std::string hz;      // set (to the default or to =HZ) when --host-profile is given
    std::string folded;  // --host-profile-folded FILE
};
void add_host_profile_options(CLI::App& run, HostProfileArgs& a);

struct HostProfilePlan {
    uint32_t hz = 0;
    std::string folded;
};
// nullopt without --host-profile; throws UsageError for a bad value or an
// unwritable FILE, and for FILE without --host-profile.
std::optional<HostProfilePlan> plan_host_profile(const HostProfileArgs& a);

// The profiler; throws HostError (exit 3) with perf_event_open's one-line
// reason when this process may not sample here.
std::unique_ptr<lab::HostProfiler> start_host_profiler(const HostProfilePlan& p);

// Writes the folded stacks (when asked) and returns the tables to print.
// False in `written` when the file could not be written (said on stderr).
std::string finish_host_profile(const lab::HostProfiler& prof, const HostProfilePlan& p,
                                const lab::RunReport& rep, bool& written);

// Writes the --export-html files with the page `render` makes and takes
// them out of `exports` (the other formats stay); false when one could not
// be written.
bool write_html_exports(std::vector<std::pair<std::string, std::string>>& exports,
                        const std::function<std::string()>& render);

// write_html_exports with a flame graph per profiled test.
bool write_html_with_flames(std::vector<std::pair<std::string, std::string>>& exports,
                            const lab::HostProfiler& prof, const lab::RunReport& rep);

} // namespace eb::cli
