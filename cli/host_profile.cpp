#include "cli/host_profile.h"

#include <fmt/format.h>

#include "cli/errors.h"
#include "cli/export.h"
#include "cli/parse.h"
#include "cli/run.h"
#include "report/flame.h"
#include "report/host_profile_text.h"
#include "report/sanitize.h"
#include "sys/file.h"

namespace eb::cli {

namespace {
// Above the kernel's usual perf_event_max_sample_rate the kernel throttles anyway.
constexpr uint64_t kMaxHz = 100'000;
} // namespace

void add_host_profile_options(CLI::App& run, HostProfileArgs& a) {
    run.add_flag(fmt::format("--host-profile{{{}}}", lab::kDefaultHostProfileHz), a.hz,
                 fmt::format("sample the vCPU threads (kernel and exitbench, with call chains, perf_event_open "
                             "cpu-clock) while the measured batches run, every other batch (the rest measure the "
                             "overhead; the run's results come from those unsampled batches only); print per test the functions in ns and cycles per iteration. "
                             "--host-profile=HZ sets the rate (default {} Hz)",
                             lab::kDefaultHostProfileHz));
    run.add_option("--host-profile-folded", a.folded,
                   "with --host-profile: write the stacks, folded (\"test;root;...;leaf count\" a line), to FILE")
        ->type_name("FILE");
}

std::optional<HostProfilePlan> plan_host_profile(const HostProfileArgs& a) {
    if (a.hz.empty()) {
        if (!a.folded.empty()) throw UsageError("--host-profile-folded needs --host-profile");
        return std::nullopt;
    }
    HostProfilePlan p;
    p.hz = static_cast<uint32_t>(parse_count("--host-profile", a.hz, 1, kMaxHz));
    p.folded = a.folded;
    if (!p.folded.empty()) require_writable(p.folded);
    return p;
}

std::unique_ptr<lab::HostProfiler> start_host_profiler(const HostProfilePlan& p) {
    return std::make_unique<lab::HostProfiler>(p.hz);  // SamplerError is a HostError
}

std::string finish_host_profile(const lab::HostProfiler& prof, const HostProfilePlan& p,
                                const lab::RunReport& rep, bool& written) {
    auto profiles = prof.profiles();
    written = true;
    if (!p.folded.empty()) {
        try {
            sys::write_file(p.folded, prof.folded_stacks());
        } catch (const std::exception& e) {
            fmt::print(stderr, "exitbench: error: {}\n", report::printable(e.what()));
            written = false;
        }
    }
    return report::render_host_profile(profiles, prof.notes(), rep.host.tsc_mhz);
}

bool write_html_exports(std::vector<std::pair<std::string, std::string>>& exports,
                        const std::function<std::string()>& render) {
    bool ok = true;
    for (auto it = exports.begin(); it != exports.end();) {
        if (it->first != "html") {
            ++it;
            continue;
        }
        ok &= write_export("html", it->second, render);
        it = exports.erase(it);
    }
    return ok;
}

bool write_html_with_flames(std::vector<std::pair<std::string, std::string>>& exports,
                            const lab::HostProfiler& prof, const lab::RunReport& rep) {
    return write_html_exports(exports, [&] { return report::render_run_html(rep, prof.profiles()); });
}

} // namespace eb::cli
