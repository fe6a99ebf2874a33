#include "lab/kexec_run.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

#include "lab/saved_runs.h"
#include "sys/error.h"

namespace fs = std::filesystem;

namespace eb::lab {

KexecPlan start_kexec_plan(const KexecSpec& spec, const std::string& state, const std::string& name_a,
                           const std::string& name_b) {
    auto p = plan_kexec(spec);
    require_saveable(spec.db);
    if (p.label.empty()) p.label = "kernel-ab-" + p.id.substr(0, p.id.find('-'));
    p.sides[0].name = name_a;
    p.sides[1].name = name_b;
    std::error_code ec;
    fs::remove_all(plan_dir(spec.db), ec);  // a finished plan's boots; its runs are in the history
    save_plan(state, p);
    install_unit(p.unit_dir, unit_text(p));
    return p;
}

std::optional<ResumedBoot> resume_kexec_plan(KexecPlan& p, const std::string& state) {
    std::string id = this_boot_id();
    if (p.finished() || id == p.launched_from) return std::nullopt;
    auto slot = booted_slot(p, this_cmdline());
    KexecBoot b;
    b.boot_id = id;
    if (slot != p.slot)
        b.failure = fmt::format("boot {} did not come up: this boot's command line has no {}", p.slot,
                                slot_marker(p, p.slot));
    else
        b = measure_boot(p, plan_dir(p.db));
    int side = p.order[p.slot - 1];
    ResumedBoot said;
    if (b.failure.empty()) {
        said.run_id = save_run(p.db, load_result(b.result, p.db), p.label + (side ? "/B" : "/A"), p.note);
        b.saved = said.run_id.has_value();
    }
    said.boot = b;
    said.boot.slot = p.slot, said.boot.side = side, said.boot.retry = p.retry;
    record_boot(p, std::move(b));
    save_plan(state, p);
    return said;
}

KexecFinish finish_kexec_plan(KexecPlan& p, const std::string& state) {
    KexecFinish f;
    AbRuns runs;
    for (const auto& b : p.boots) {
        runs.attempts.push_back({b.side, b.slot, b.retry, b.boot_id, b.failure, 0});
        if (!b.result.empty()) runs.sides[size_t(b.side)].push_back(load_result(b.result, p.db));
    }
    runs.short_sides = p.short_sides;
    p.done = true;
    save_plan(state, p);
    remove_unit(p.unit_dir);
    std::vector<std::string> labels{p.sides[0].name, p.sides[1].name};
    f.compared = compare_booted(std::move(runs), labels, p.alpha, false);
    f.header.push_back(fmt::format("kexec'd kernels on this machine (no QEMU: its own figures), plan {}", p.id));
    for (int s = 0; s < 2; ++s) {
        std::vector<std::string> ids;
        for (const auto& r : f.compared.runs.sides[s]) ids.push_back(r.provenance.boot_id);
        f.header.push_back(fmt::format("  {}: {} boot(s): {}", labels[size_t(s)], ids.size(), fmt::join(ids, " ")));
    }
    f.saved = std::all_of(p.boots.begin(), p.boots.end(), [](const auto& b) { return b.result.empty() || b.saved; });
    return f;
}

bool abort_kexec_plan(const KexecPlan& p, const std::string& state) {
    bool unit = remove_unit(p.unit_dir);
    std::error_code ec;
    fs::remove_all(plan_dir(p.db), ec);
    fs::remove(state, ec);
    if (ec) throw HostError(fmt::format("cannot remove {}: {}", state, ec.message()));
    return unit;
}

} // namespace eb::lab
